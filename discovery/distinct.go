package discovery

import "slices"

// kmvSize is how many hash values distinctCount keeps: counts up to it are
// exact, larger ones are estimated with a relative standard error of about
// 1/√(kmvSize−2) ≈ 3 %, in at most 8 KiB.
const kmvSize = 1024

// distinctCount counts distinct strings in bounded memory with the
// k-minimum-values sketch: it keeps the kmvSize smallest 64-bit hashes
// seen, and when there are more, the count is (k−1)/(h_k/2^64) for the
// k-th smallest hash h_k. Hashing is FNV-1a followed by the SplitMix64
// finalizer, so the estimate is deterministic.
type distinctCount struct {
	mins []uint64 // ascending, at most kmvSize
}

func (d *distinctCount) add(s string) {
	x := hashString(s)
	if len(d.mins) == kmvSize && x >= d.mins[kmvSize-1] {
		return
	}
	i, found := slices.BinarySearch(d.mins, x)
	if found {
		return
	}
	d.mins = slices.Insert(d.mins, i, x)
	if len(d.mins) > kmvSize {
		d.mins = d.mins[:kmvSize]
	}
}

func (d *distinctCount) count() float64 {
	if len(d.mins) < kmvSize {
		return float64(len(d.mins))
	}
	return float64(kmvSize-1) / (float64(d.mins[kmvSize-1]) / (1 << 64))
}

func (d *distinctCount) reset() { d.mins = d.mins[:0] }

func hashString(s string) uint64 {
	x := uint64(14695981039346656037) // FNV-1a offset basis
	for i := 0; i < len(s); i++ {
		x ^= uint64(s[i])
		x *= 1099511628211 // FNV prime
	}
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
