package archive

import (
	"crypto/sha256"
	"encoding/hex"
)

// checkHashes recomputes the SHA-256 of every body and checks its first 16
// hex digits against the manifest's hash. Bodies shared by several
// intervals are hashed once per distinct (offset, length, hash). A
// mismatch is an ErrCorrupt error naming the first bad interval and how
// many were bad.
func (a *Archive) checkHashes() error {
	type body struct {
		off, n uint32
		hash   string
	}
	seen := make(map[body]struct{}, len(a.ix.ivs))
	var (
		bad   int
		first error
		hexd  [hashLen]byte
	)
	for id, iv := range a.ix.ivs {
		b := body{iv.off, iv.n, a.hash(id)}
		if _, ok := seen[b]; ok {
			continue
		}
		seen[b] = struct{}{}
		sum := sha256.Sum256(a.blob[iv.off : iv.off+iv.n])
		hex.Encode(hexd[:], sum[:hashLen/2])
		if string(hexd[:]) != b.hash {
			bad++
			if first == nil {
				first = corruptf("url %q weeks [%d, %d]: body hash %s, manifest says %s",
					a.ix.urls[iv.url], iv.first, iv.last, hexd[:], b.hash)
			}
		}
	}
	if bad > 1 {
		return corruptf("%w (and %d more mismatches)", first, bad-1)
	}
	return first
}
