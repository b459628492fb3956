package shingle

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// encodingVersion is the first byte of MarshalBinary's output.
//
// Version 1 layout (uvarint = encoding/binary's unsigned varint):
//
//	version   1 byte, = 1
//	width     uvarint, in [1, MaxWidth]
//	k         uvarint, in [1, MaxSketchSize]
//	count     uvarint
//	simhash   8 bytes, little-endian
//	exact     8 bytes, little-endian
//	n         uvarint, = min(k, count)
//	sketch    n uvarints: the first hash, then the gap to each next one (> 0)
const encodingVersion = 1

// ErrCorrupt marks bytes UnmarshalBinary cannot read.
var ErrCorrupt = errors.New("shingle: corrupt signature")

// MarshalBinary encodes the signature compactly (see encodingVersion). It
// fails for a Signature that Compute cannot have returned.
func (s Signature) MarshalBinary() ([]byte, error) {
	if s.Width < 1 || s.Width > MaxWidth || s.K < 1 || s.K > MaxSketchSize || s.Count < 0 ||
		len(s.Sketch) != min(s.K, s.Count) {
		return nil, fmt.Errorf("shingle: marshal: inconsistent signature (width %d, k %d, count %d, %d hashes)",
			s.Width, s.K, s.Count, len(s.Sketch))
	}
	b := make([]byte, 0, 1+3*binary.MaxVarintLen64+16+binary.MaxVarintLen64*(1+len(s.Sketch)))
	b = append(b, encodingVersion)
	b = binary.AppendUvarint(b, uint64(s.Width))
	b = binary.AppendUvarint(b, uint64(s.K))
	b = binary.AppendUvarint(b, uint64(s.Count))
	b = binary.LittleEndian.AppendUint64(b, s.SimHash)
	b = binary.LittleEndian.AppendUint64(b, s.Exact)
	b = binary.AppendUvarint(b, uint64(len(s.Sketch)))
	var prev uint64
	for i, h := range s.Sketch {
		if i > 0 && h <= prev {
			return nil, fmt.Errorf("shingle: marshal: sketch not strictly ascending at %d", i)
		}
		b = binary.AppendUvarint(b, h-prev)
		prev = h
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote. Any inconsistency is
// an error wrapping ErrCorrupt; s is changed only on success.
func (s *Signature) UnmarshalBinary(data []byte) error {
	d := decoder{b: data}
	if v := d.byte(); d.err == nil && v != encodingVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrCorrupt, v, encodingVersion)
	}
	width := d.uvarint("width", MaxWidth)
	k := d.uvarint("k", MaxSketchSize)
	count := d.uvarint("count", 1<<62)
	simHash := d.uint64()
	exact := d.uint64()
	n := d.uvarint("sketch length", MaxSketchSize)
	if d.err != nil {
		return d.err
	}
	if width == 0 || k == 0 {
		return fmt.Errorf("%w: width %d, k %d", ErrCorrupt, width, k)
	}
	if n != min(k, count) {
		return fmt.Errorf("%w: %d hashes for k %d and count %d", ErrCorrupt, n, k, count)
	}
	sketch := make([]uint64, n)
	var prev uint64
	for i := range sketch {
		gap := d.uvarint("hash", ^uint64(0))
		if d.err != nil {
			return d.err
		}
		if i > 0 && (gap == 0 || prev+gap < prev) {
			return fmt.Errorf("%w: sketch not strictly ascending at %d", ErrCorrupt, i)
		}
		prev += gap
		sketch[i] = prev
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(d.b))
	}
	*s = Signature{Width: int(width), K: int(k), Count: int(count), Sketch: sketch, SimHash: simHash, Exact: exact}
	return nil
}

// decoder reads fields and keeps the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 1 {
		d.err = fmt.Errorf("%w: empty", ErrCorrupt)
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uint64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.err = fmt.Errorf("%w: truncated", ErrCorrupt)
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) uvarint(what string, limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("%w: bad %s", ErrCorrupt, what)
		return 0
	}
	if v > limit {
		d.err = fmt.Errorf("%w: %s %d above %d", ErrCorrupt, what, v, limit)
		return 0
	}
	d.b = d.b[n:]
	return v
}
