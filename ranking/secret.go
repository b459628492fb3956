package ranking

import (
	"crypto/rand"
	"errors"
	"fmt"

	"context"
	"github.com/deltaq/deltaq/crawler/repo"
)

// Secret returns the server secret that keys click signatures and
// promotion seeds: the configured one if set, else the one stored in the
// repository, else a new random 32-byte secret that is stored there first,
// so signed links and users' shuffles survive a restart.
func (s *Store) Secret(ctx context.Context, configured string) ([]byte, error) {
	if configured != "" {
		if len(configured) < MinSecretLen {
			return nil, fmt.Errorf("ranking.secret = (%d bytes): must be at least %d bytes", len(configured), MinSecretLen)
		}
		return []byte(configured), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.db.Bucket(Bucket, keySecret)
	if err == nil {
		if len(v) < MinSecretLen {
			return nil, fmt.Errorf("ranking: stored secret of %d bytes: %w", len(v), ErrCorrupt)
		}
		return v, nil
	}
	if !errors.Is(err, repo.ErrNotFound) {
		return nil, fmt.Errorf("ranking: read secret: %w", err)
	}
	secret := make([]byte, MinSecretLen)
	rand.Read(secret) // never fails (crypto/rand)
	b := s.db.NewBatch(ctx)
	defer b.Close()
	if err := b.PutBucket(Bucket, keySecret, secret); err != nil {
		return nil, err
	}
	if err := b.Commit(); err != nil {
		return nil, fmt.Errorf("ranking: store secret: %w", err)
	}
	s.logger.Info("generated and stored a new server secret")
	return secret, nil
}
