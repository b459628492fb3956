package watch

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/deltaq/deltaq/repo"
)

// A feed reader cannot send "Authorization: Bearer KEY"; it can only
// fetch a URL. A key's feed token goes in that URL (?token=) to read the
// key's feeds, and nothing else: a token in a URL ends up in readers'
// settings, logs and shared links, so it must not be the key, nor reveal
// it, nor let its holder change anything.
//
// The token is HMAC-SHA256 under the server's feed secret (fs/, made once
// and kept in the repository, so tokens survive restarts) of the key's
// hash: the same key always has the same token, shown again whenever its
// holder asks, and nothing in the repository or the token gives the key
// away. ft/SHA256(token) names the key's hash, so that a token is looked
// up as a key is. A revoked key takes its token with it (RevokeKey); a
// token whose key is gone is refused even if its ft/ entry stayed.

// FeedTokenPrefix starts every feed token, as "dqw_" starts every key, so
// that one is not taken for the other.
const FeedTokenPrefix = "dqf_"

// feedToken is the token of the key hash under the feed secret fs.
func feedToken(fs []byte, hash string) string {
	m := hmac.New(sha256.New, fs)
	m.Write([]byte("deltaq feed token\x00" + hash))
	return FeedTokenPrefix + hex.EncodeToString(m.Sum(nil)[:20])
}

// feedSecret reads the server's feed secret; found is false when none
// was made yet.
func (e *Engine) feedSecret() (fs []byte, found bool, err error) {
	b, err := e.db.Bucket(bucket, feedSecretKey)
	if errors.Is(err, repo.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("watch: read the feed secret: %w", err)
	}
	return b, true, nil
}

// FeedToken returns the feed token of k, a key Authenticate returned,
// making the server's feed secret on first use and listing the token
// under its key.
func (e *Engine) FeedToken(ctx context.Context, k Key) (string, error) {
	if k.hash == "" {
		return "", fmt.Errorf("watch: feed token of %q: the key was not authenticated", k.User)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	fs, found, err := e.feedSecret()
	if err != nil {
		return "", err
	}
	b := e.db.NewBatch(ctx)
	defer b.Close()
	if !found {
		fs = make([]byte, 32)
		if _, err := rand.Read(fs); err != nil {
			return "", fmt.Errorf("watch: feed secret: %w", err)
		}
		if err := b.PutBucket(bucket, feedSecretKey, fs); err != nil {
			return "", err
		}
	}
	token := feedToken(fs, k.hash)
	entry := feedTokenPrefix + keyHash(token)
	var listed string
	ok, err := (&reader{db: e.db}).get(entry, &listed)
	if err != nil {
		return "", err
	}
	if ok && listed == k.hash && found {
		return token, nil
	}
	if err := put(b, entry, k.hash); err != nil {
		return "", err
	}
	if err := b.Commit(); err != nil {
		return "", fmt.Errorf("watch: feed token of %q: %w", k.User, err)
	}
	return token, nil
}

// AuthenticateFeed returns the key whose feed token this is. A token of
// a revoked key, or one made under another feed secret, is no token.
func (e *Engine) AuthenticateFeed(token string) (Key, bool, error) {
	if !strings.HasPrefix(token, FeedTokenPrefix) {
		return Key{}, false, nil
	}
	var hash string
	ok, err := (&reader{db: e.db}).get(feedTokenPrefix+keyHash(token), &hash)
	if err != nil || !ok {
		return Key{}, false, err
	}
	fs, found, err := e.feedSecret()
	if err != nil || !found {
		return Key{}, false, err
	}
	if !hmac.Equal([]byte(feedToken(fs, hash)), []byte(token)) {
		return Key{}, false, nil
	}
	return e.keyByHash(hash)
}
