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
type keyedMAC struct{ pool sync.Pool }

func newKeyedMAC(key []byte) *keyedMAC {
	key = append([]byte(nil), key...)
	return &keyedMAC{pool: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

// sum returns the HMAC of msg.
func (k *keyedMAC) sum(msg []byte) [sha256.Size]byte {
	h := k.pool.Get().(hash.Hash)
	h.Reset()
	h.Write(msg)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	k.pool.Put(h)
	return out
}

// appendField appends a length-prefixed field, so field boundaries are
// part of what is authenticated ("ab"+"c" differs from "a"+"bc").
func appendField(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
