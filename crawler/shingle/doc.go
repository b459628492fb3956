// Package shingle decides how much a page's text changed between two
// fetches: it reduces a text to a small Signature and estimates from two
// signatures the fraction of word shingles that differ.
//
// This is the heuristic of thesis §4.7.1 for telling significant updates
// from insignificant ones (a changed timestamp, a rotated advertisement):
// SBR counts a re-download as a change only if the fraction of differing
// shingles exceeds τ_SBR, and EBR estimates d(p) as the fraction of updates
// whose differing fraction reaches τ_EBR. Difference is that fraction.
// The thresholds belong to the frontier's policies, not here.
//
// A Signature is computed from the page's main text (crawler/extract):
// words are maximal runs of Unicode letters and digits, lowercased; each run
// of w consecutive words (a w-shingle; w = 4 unless Options say otherwise)
// is hashed to 64 bits (FNV-1a per word, combined and finalized with the
// MurmurHash3 mixer). The signature keeps
//
//   - the k smallest distinct shingle hashes, a bottom-k sketch (k = 128
//     unless Options say otherwise), and the exact number of distinct
//     shingles;
//   - a 64-bit SimHash of the shingle set, for near-duplicate lookups;
//   - the first 64 bits of the SHA-256 of the exact text, so that an
//     unchanged page costs no estimate at all.
//
// Its state is bounded by k: MarshalBinary writes at most 32 + 10·k bytes,
// versioned, for the repository to store per page; with the hashes
// delta-encoded a 600-word page takes about 1,060 bytes at k = 128.
//
// Difference estimates 1 − J(A, B), the Jaccard distance of the two shingle
// sets, with the standard bottom-k estimator (Broder 1997; Cohen & Kaplan
// 2007): among the k smallest hashes of A ∪ B, the fraction present in both
// sketches estimates J. Its standard error is about √(J(1−J)/k), so ±0.04
// at J = 0.5 and k = 128. When both sets have at most k shingles the
// sketches are the whole sets and the result is exact.
//
//	a := shingle.Compute(oldDoc.Text, shingle.Options{})
//	b := shingle.Compute(newDoc.Text, shingle.Options{})
//	if shingle.Difference(a, b) > tauSBR { /* a significant update */ }
//	buf, err := b.MarshalBinary()
package shingle
