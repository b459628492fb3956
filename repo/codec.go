package repo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// Values are encoded with a one-byte format version followed by fields in a
// fixed order, each as a varint, a length-prefixed string or an 8-byte
// float. Decoding an unknown version or a short value is an error that names
// the record, never a panic.

// ErrCorrupt marks a value that does not decode.
var ErrCorrupt = errors.New("repo: corrupt value")

type encoder struct{ b []byte }

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) byte(v byte)      { e.b = append(e.b, v) }

func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *encoder) str(s string) {
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) bytes(p []byte) {
	e.uvarint(uint64(len(p)))
	e.b = append(e.b, p...)
}

func (e *encoder) f64(v float64) {
	e.b = binary.BigEndian.AppendUint64(e.b, math.Float64bits(v))
}

// time stores nanoseconds since the epoch; the zero time is stored as 0.
func (e *encoder) time(t time.Time) {
	if t.IsZero() {
		e.varint(0)
		return
	}
	e.varint(t.UnixNano())
}

func (e *encoder) duration(d time.Duration) { e.varint(int64(d)) }

type decoder struct {
	b    []byte
	what string
	err  error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorrupt, d.what)
	}
}

func (d *decoder) uvarint() uint64 { return readVarint(d, binary.Uvarint) }
func (d *decoder) varint() int64   { return readVarint(d, binary.Varint) }

// readVarint consumes one varint read by read (binary.Uvarint or
// binary.Varint); a short or overlong one fails the decoder.
func readVarint[T uint64 | int64](d *decoder, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) < 1 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) bool() bool { return d.byte() != 0 }

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || uint64(len(d.b)) < n {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) f64() float64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := math.Float64frombits(binary.BigEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *decoder) time() time.Time {
	v := d.varint()
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, v).UTC()
}

func (d *decoder) duration() time.Duration { return time.Duration(d.varint()) }

// version checks the leading format byte.
func (d *decoder) version(want byte) {
	if v := d.byte(); d.err == nil && v != want {
		d.err = fmt.Errorf("%w: %s: format version %d, want %d", ErrCorrupt, d.what, v, want)
	}
}
