package watch

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deltaq/deltaq/internal/excerpt"
	"github.com/deltaq/deltaq/repo"
)

// KeyPrefix starts every key, as FeedTokenPrefix starts every feed token:
// a token given where a key is asked for is told apart, and named.
const KeyPrefix = "dqw_"

// keyPrefix: k/SHA256(secret) → Key. Only the hash is stored, so a read of
// the repository does not give the keys away.
const keyPrefix = "k/"

// Feed tokens (feedtoken.go): fs/ holds the server's feed secret, and
// ft/SHA256(token) → the hash of the key the token is of.
const (
	feedSecretKey   = "fs/"
	feedTokenPrefix = "ft/"
)

// Key is an API key of the watch and alert API: whose it is and what it
// may ask for.
type Key struct {
	User string `json:"user"`
	// MaxWatches is the most sentinels the user may have installed.
	MaxWatches int `json:"max_watches"`
	// MinEvery is the shortest check interval the user may wish for.
	MinEvery time.Duration `json:"min_every"`
	// MaxRegexBytes is the longest regex (Go's regexp runs in linear time,
	// so a size bound is what keeps a regex cheap; there is no timeout).
	MaxRegexBytes int       `json:"max_regex_bytes"`
	Created       time.Time `json:"created"`
	// hash is SHA256(secret), set by Authenticate: what a feed token is
	// made from (FeedToken). It is the key's name in the repository, not
	// part of its record.
	hash string
}

// LimitError is a spec outside its API key's limits: more watches, a
// shorter interval or a longer regex than the key allows.
type LimitError struct{ Field, Value, Limit string }

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s = %s: this API key allows %s", e.Field, e.Value, e.Limit)
}

// Every is the check interval spec wishes for under this key: its own,
// or when it names none DefaultEvery, or the key's shortest interval if
// that is longer (a default the key refused would be no default).
func (k Key) Every(spec Spec) time.Duration {
	if spec.Every != 0 {
		return spec.Every
	}
	return max(DefaultEvery, k.MinEvery)
}

// Admit sets spec's interval to the one it wishes for under the key
// (Every), so that what is installed is what was checked, and checks spec
// against the key's limits, given how many sentinels the user already has.
func (k Key) Admit(spec *Spec, installed int) error {
	spec.Every = k.Every(*spec)
	switch {
	case installed >= k.MaxWatches:
		return &LimitError{Field: "watches", Value: fmt.Sprint(installed + 1), Limit: fmt.Sprintf("at most %d", k.MaxWatches)}
	case spec.Every < k.MinEvery:
		return &LimitError{Field: "every", Value: spec.Every.String(), Limit: "at least " + k.MinEvery.String()}
	case len(spec.Regex) > k.MaxRegexBytes:
		return &LimitError{Field: "regex", Value: fmt.Sprintf("%d bytes", len(spec.Regex)), Limit: fmt.Sprintf("at most %d bytes", k.MaxRegexBytes)}
	}
	return nil
}

func keyHash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// DefaultKeyLimits are the limits of a key made without naming them.
var DefaultKeyLimits = Key{MaxWatches: 100, MinEvery: time.Hour, MaxRegexBytes: 256}

// MaxUserBytes is the longest user name a key is made for.
const MaxUserBytes = 64

// userLimit is what a user name may be: a name goes into feed URNs, URLs,
// logs and every listing, so it is kept to characters none of them needs
// to escape, as the names in use ("ada", "demo", "ops@example.org") are.
var userLimit = fmt.Sprintf("1 to %d bytes of ASCII letters, digits, '.', '_', '-' and '@'", MaxUserBytes)

// CheckUser refuses a user name a key may not be made for, naming the
// value (cut, if long) and the limit.
func CheckUser(user string) error {
	ok := user != "" && len(user) <= MaxUserBytes
	for i := 0; ok && i < len(user); i++ {
		c := user[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._-@", c) >= 0
	}
	if ok {
		return nil
	}
	v := excerpt.Quoted(user, maxUserExcerpt)
	if len(user) > MaxUserBytes {
		v += fmt.Sprintf(" (%d bytes)", len(user))
	}
	return &FieldError{Field: "user", Value: v, Limit: userLimit}
}

// maxUserExcerpt is the most characters of a user name an error repeats.
const maxUserExcerpt = 40

// CreateKey stores k and returns its secret, shown once; k.User must pass
// CheckUser.
func (e *Engine) CreateKey(ctx context.Context, k Key) (string, error) {
	var bad []error
	if err := CheckUser(k.User); err != nil {
		bad = append(bad, err)
	}
	if k.MaxWatches <= 0 {
		bad = append(bad, &FieldError{Field: "max_watches", Value: fmt.Sprint(k.MaxWatches), Limit: "> 0"})
	}
	if k.MinEvery <= 0 {
		bad = append(bad, &FieldError{Field: "min_every", Value: k.MinEvery.String(), Limit: "> 0"})
	}
	if k.MaxRegexBytes <= 0 {
		bad = append(bad, &FieldError{Field: "max_regex_bytes", Value: fmt.Sprint(k.MaxRegexBytes), Limit: "> 0"})
	}
	if err := errors.Join(bad...); err != nil {
		return "", fmt.Errorf("watch: key for %s: %w", excerpt.Quoted(k.User, maxUserExcerpt), err)
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("watch: key: %w", err)
	}
	secret := KeyPrefix + hex.EncodeToString(raw)
	k.Created = e.now()
	b := e.db.NewBatch(ctx)
	defer b.Close()
	if err := put(b, keyPrefix+keyHash(secret), &k); err != nil {
		return "", err
	}
	return secret, b.Commit()
}

// Authenticate returns the key whose secret this is.
func (e *Engine) Authenticate(secret string) (Key, bool, error) {
	return e.keyByHash(keyHash(secret))
}

// keyByHash returns the key stored under hash.
func (e *Engine) keyByHash(hash string) (Key, bool, error) {
	var k Key
	ok, err := (&reader{db: e.db}).get(keyPrefix+hash, &k)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return Key{}, false, err
	}
	if ok {
		k.hash = hash
	}
	return k, ok, nil
}

// ErrNoSuchKey is a secret that is no key of this repository.
var ErrNoSuchKey = errors.New("watch: no such key")

// RevokeKey deletes the key whose secret this is, and with it its feed
// token: neither is accepted again. It returns the key revoked.
func (e *Engine) RevokeKey(ctx context.Context, secret string) (Key, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	k, ok, err := e.Authenticate(strings.TrimSpace(secret))
	if err != nil {
		return k, err
	}
	if !ok {
		return k, ErrNoSuchKey
	}
	b := e.db.NewBatch(ctx)
	defer b.Close()
	if err := b.DeleteBucket(bucket, keyPrefix+k.hash); err != nil {
		return k, err
	}
	fs, found, err := e.feedSecret()
	if err != nil {
		return k, err
	}
	if found {
		if err := b.DeleteBucket(bucket, feedTokenPrefix+keyHash(feedToken(fs, k.hash))); err != nil {
			return k, err
		}
	}
	if err := b.Commit(); err != nil {
		return k, fmt.Errorf("watch: revoke the key of %q: %w", k.User, err)
	}
	return k, nil
}
