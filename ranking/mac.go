package ranking

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"
)

// keyedMAC computes HMAC-SHA256 under one key with keyed states reused
// from a pool: hmac.New hashes the key into fresh inner and outer states
// on every call, which a result page (ten signed links and a promotion
// seed) would pay eleven times.
type keyedMAC struct{ pool sync.Pool } // *macState

// macState is a keyed HMAC state with the array its sum is written to,
// which a sum on the caller's stack would escape to the heap through the
// hash.Hash interface on every call.
type macState struct {
	h   hash.Hash
	sum [sha256.Size]byte
}

func newKeyedMAC(key []byte) *keyedMAC {
	key = append([]byte(nil), key...)
	return &keyedMAC{pool: sync.Pool{New: func() any { return &macState{h: hmac.New(sha256.New, key)} }}}
}

// sum returns the HMAC of msg.
func (k *keyedMAC) sum(msg []byte) [sha256.Size]byte {
	st := k.pool.Get().(*macState)
	st.h.Reset()
	st.h.Write(msg)
	st.h.Sum(st.sum[:0])
	out := st.sum
	k.pool.Put(st)
	return out
}

// appendField appends a length-prefixed field, so field boundaries are
// part of what is authenticated ("ab"+"c" differs from "a"+"bc").
func appendField[T string | []byte](b []byte, s T) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
