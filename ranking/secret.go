package ranking

import (
	"context"
	"crypto/rand"
	"fmt"
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
	v, created, err := s.db.BucketOrCreate(ctx, Bucket, keySecret, func() ([]byte, error) {
		secret := make([]byte, MinSecretLen)
		rand.Read(secret) // never fails (crypto/rand)
		return secret, nil
	})
	if err != nil {
		return nil, fmt.Errorf("ranking: secret: %w", err)
	}
	if created {
		s.logger.Info("generated and stored a new server secret")
	}
	if len(v) < MinSecretLen {
		return nil, fmt.Errorf("ranking: stored secret of %d bytes: %w", len(v), ErrCorrupt)
	}
	return v, nil
}
