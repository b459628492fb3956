package ranking

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/deltaq/deltaq/repo"
)

// Limits on what a click record may name; longer values are refused so a
// crafted link cannot grow the repository's keys without bound.
const (
	MaxURLLen    = 4096
	MaxUserIDLen = 128
)

// ErrBadClick is returned for a click naming an empty, oversized or
// malformed URL or user id.
var ErrBadClick = errors.New("ranking: bad click")

// Monitored reports whether user belongs to U_m, the monitored users over
// whom awareness and popularity are measured (thesis §5.4.1). The decision
// hashes the user id, so it is the same on every request and every restart,
// and a ranking.monitored_fraction share of ids lands inside.
func Monitored(user string, fraction float64) bool {
	if fraction <= 0 {
		return false
	}
	if fraction >= 1 {
		return true
	}
	h := sha256.Sum256([]byte("deltaq monitored user\x00" + user))
	x := float64(binary.BigEndian.Uint64(h[:8])>>11) / (1 << 53) // uniform in [0, 1)
	return x < fraction
}

// RecordClick records that user clicked url: the page's click count grows
// by one, and if user is monitored and had not clicked url before, the
// page's awareness count m·A(p,t) grows by one (§5.4, definition 5.4.2:
// awareness is the fraction of monitored users who have visited the page).
// It reports whether the awareness count grew.
func (s *Store) RecordClick(ctx context.Context, url, user string) (newlyAware bool, err error) {
	if err := checkClick(url, user); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.db.NewBatch(ctx)
	defer b.Close()
	clicks, aware := 0, 0
	if v, err := b.Bucket(Bucket, prefixClicks+url); err == nil {
		if clicks, aware, err = decodeClickStats(v); err != nil {
			return false, fmt.Errorf("ranking: click stats %s: %w", url, err)
		}
	} else if !errors.Is(err, repo.ErrNotFound) {
		return false, fmt.Errorf("ranking: read click stats %s: %w", url, err)
	}
	clicks++
	if Monitored(user, s.monitoredFraction) {
		key := prefixAware + url + "\x00" + user
		if _, err := b.Bucket(Bucket, key); errors.Is(err, repo.ErrNotFound) {
			if err := b.PutBucket(Bucket, key, nil); err != nil {
				return false, err
			}
			aware++
			newlyAware = true
		} else if err != nil {
			return false, fmt.Errorf("ranking: read awareness %s: %w", url, err)
		}
	}
	if err := b.PutBucket(Bucket, prefixClicks+url, encodeClickStats(clicks, aware)); err != nil {
		return false, err
	}
	if err := b.Commit(); err != nil {
		return false, fmt.Errorf("ranking: record click %s: %w", url, err)
	}
	s.updateColumn(func() {
		st := s.statsOf(url)
		st.Clicks, st.Aware = clicks, aware
	})
	return newlyAware, nil
}

func checkClick(url, user string) error {
	if limit, ok := clickURLOK(url); !ok {
		return fmt.Errorf("%w: url of %d bytes: %s", ErrBadClick, len(url), limit)
	}
	if limit, ok := clickUserOK(user); !ok {
		return fmt.Errorf("%w: user id of %d bytes: %s", ErrBadClick, len(user), limit)
	}
	return nil
}

// clickURLOK and clickUserOK check a click's URL and user id, and say
// what they must be when they are not.
func clickURLOK(url string) (limit string, ok bool) {
	return fmt.Sprintf("1 to %d bytes, no NUL", MaxURLLen), url != "" && len(url) <= MaxURLLen && strings.IndexByte(url, 0) < 0
}

func clickUserOK(user string) (limit string, ok bool) {
	return fmt.Sprintf("1 to %d bytes, no NUL", MaxUserIDLen), user != "" && len(user) <= MaxUserIDLen && strings.IndexByte(user, 0) < 0
}
