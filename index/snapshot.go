package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// snapshotBucket is the repository bucket holding one snapshot per indexed
// page, keyed by URL.
const snapshotBucket = "index"

// snapshot is what the ΔQ measurement needs to know about a page's indexed
// copy when that copy is replaced (§4.6.2: the score of the old copy),
// without re-analyzing the old text on the hot path: the text field's
// analyzed length and the term frequency of every workload term it
// contains. It is written in the same repository batch as the watermark,
// so it always describes the copy in the index of the same generation.
//
// Encoding (all integers unsigned varints unless noted):
//
//	format byte (1)
//	generation  8 bytes big-endian: the index generation it describes
//	workload    8 bytes big-endian: Workload.Fingerprint it was built for
//	fetched     varint (signed) Unix nanoseconds of the indexed version; LR(p, t)
//	length      analyzed length of FieldText
//	count       number of workload terms present
//	count × (term id delta, tf)   ids ascending, positions in the sorted workload
//
// About 20 bytes plus 2–3 bytes per workload term in the page.
type snapshot struct {
	generation uint64
	workload   uint64
	fetched    time.Time
	length     int
	terms      []termScore // ascending workload term ids, with tf (s unused)
}

const snapshotFormat = 1

var errSnapshotCorrupt = errors.New("index: corrupt page snapshot")

func (s *snapshot) encode(buf []byte) []byte {
	buf = append(buf[:0], snapshotFormat)
	buf = binary.BigEndian.AppendUint64(buf, s.generation)
	buf = binary.BigEndian.AppendUint64(buf, s.workload)
	buf = binary.AppendVarint(buf, s.fetched.UnixNano())
	buf = binary.AppendUvarint(buf, uint64(s.length))
	buf = binary.AppendUvarint(buf, uint64(len(s.terms)))
	prev := int32(-1)
	for _, t := range s.terms {
		buf = binary.AppendUvarint(buf, uint64(t.id-prev))
		buf = binary.AppendUvarint(buf, uint64(t.tf))
		prev = t.id
	}
	return buf
}

func decodeSnapshot(b []byte) (snapshot, error) {
	var s snapshot
	if len(b) < 17 || b[0] != snapshotFormat {
		return s, fmt.Errorf("%w: %d bytes, format %v", errSnapshotCorrupt, len(b), b[:min(len(b), 1)])
	}
	s.generation = binary.BigEndian.Uint64(b[1:9])
	s.workload = binary.BigEndian.Uint64(b[9:17])
	b = b[17:]
	bad := func(what string) (snapshot, error) {
		return snapshot{}, fmt.Errorf("%w: %s", errSnapshotCorrupt, what)
	}
	ns, n := binary.Varint(b)
	if n <= 0 {
		return bad("fetch time")
	}
	s.fetched = time.Unix(0, ns).UTC()
	b = b[n:]
	length, n := binary.Uvarint(b)
	if n <= 0 || length > 1<<40 {
		return bad("length")
	}
	s.length = int(length)
	b = b[n:]
	count, n := binary.Uvarint(b)
	if n <= 0 || count > uint64(len(b)) {
		return bad("term count")
	}
	b = b[n:]
	s.terms = make([]termScore, count)
	prev := int64(-1)
	for i := range s.terms {
		d, n := binary.Uvarint(b)
		if n <= 0 || d == 0 || prev+int64(d) > 1<<31-1 {
			return bad("term id")
		}
		b = b[n:]
		tf, n := binary.Uvarint(b)
		if n <= 0 || tf == 0 || tf > 1<<32-1 {
			return bad("term frequency")
		}
		b = b[n:]
		prev += int64(d)
		s.terms[i] = termScore{id: int32(prev), tf: uint32(tf)}
	}
	if len(b) != 0 {
		return bad("trailing bytes")
	}
	return s, nil
}
