package shingle

import (
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// 64-bit FNV-1a (Fowler, Noll, Vo).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvRune feeds the lowercased UTF-8 encoding of the non-ASCII rune r into
// the FNV-1a state h.
func fnvRune(h uint64, r rune) uint64 {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
	for _, c := range buf[:n] {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// combine hashes a sequence of word hashes, order-sensitive, and finalizes
// the result with the MurmurHash3 64-bit mixer so that every output bit
// depends on every input bit: the bottom-k sketch needs hashes that behave
// like uniform random values.
func combine(words []uint64) uint64 {
	h := uint64(fnvOffset)
	for _, w := range words {
		h = (h ^ w) * fnvPrime
		h = bits.RotateLeft64(h, 31)
	}
	return fmix64(h ^ uint64(len(words)))
}

func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// simHash returns the SimHash of a set of hashes: bit i is set when more
// than half of the members have bit i set.
//
// The per-bit counts are kept bit-sliced: planes[j] holds bit j of all 64
// counters, and adding a member is a ripple-carry add across the planes,
// about two word operations per member instead of 64 counter updates.
func simHash(hashes []uint64) uint64 {
	var planes [64]uint64
	for _, h := range hashes {
		carry := h
		for j := 0; carry != 0; j++ {
			planes[j], carry = planes[j]^carry, planes[j]&carry
		}
	}
	var s uint64
	for i := range 64 {
		var count int
		for j := range planes {
			count |= int(planes[j]>>i&1) << j
		}
		if 2*count > len(hashes) {
			s |= 1 << i
		}
	}
	return s
}
