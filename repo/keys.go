package repo

import (
	"encoding/binary"
	"errors"
	"time"
)

// Key prefixes. Every key in the database starts with one of these bytes;
// FORMAT.md has one row per prefix with its encoding and its writer. This
// file is the only code that builds keys.
const (
	prefixPage     = 'p' // p surt                      → Page
	prefixVersion  = 'v' // v surt 0x00 at              → Version
	prefixFetchLog = 'f' // f surt 0x00 at              → FetchRecord
	prefixOutLink  = 'o' // o surt(src) 0x00 surt(dst)  → LinkKind (1 byte)
	prefixInLink   = 'i' // i surt(dst) 0x00 surt(src)  → empty
	prefixHost     = 'h' // h hostkey                   → HostState
	prefixQueue    = 'q' // q hostkey 0x00 class due seq → QueueEntry
	prefixChange   = 'c' // c seq                       → Change
	prefixStat     = 's' // s surt 0x00 kind at         → owner-encoded statistic
	prefixBucket   = 'b' // b name 0x00 tail            → owner-encoded value
	prefixMeta     = 'm' // m name                      → owner-encoded value
)

const sep = 0x00

// ErrBadKey reports a key that does not decode; it means corruption or a
// bug, never user input.
var ErrBadKey = errors.New("repo: malformed key")

// encodeTime maps t to 8 bytes whose byte order is time order, including
// before 1970: the sign bit of UnixNano is flipped. The zero time encodes as
// all zero bytes.
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return binary.BigEndian.AppendUint64(b, 0)
	}
	return binary.BigEndian.AppendUint64(b, uint64(t.UnixNano())^(1<<63))
}

func decodeTime(b []byte) time.Time {
	v := binary.BigEndian.Uint64(b)
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(v^(1<<63))).UTC()
}

func pageKey(surt string) []byte {
	return append([]byte{prefixPage}, surt...)
}

// withSep builds prefix|surt|0x00, the common start of every per-URL range.
func withSep(prefix byte, surt string) []byte {
	b := make([]byte, 0, len(surt)+18)
	b = append(b, prefix)
	b = append(b, surt...)
	return append(b, sep)
}

func versionKey(surt string, at time.Time) []byte {
	return appendTime(withSep(prefixVersion, surt), at)
}

func fetchLogKey(surt string, at time.Time) []byte {
	return appendTime(withSep(prefixFetchLog, surt), at)
}

func outLinkKey(src, dst string) []byte {
	return append(withSep(prefixOutLink, src), dst...)
}

func inLinkKey(dst, src string) []byte {
	return append(withSep(prefixInLink, dst), src...)
}

func hostKey(hk string) []byte {
	return append([]byte{prefixHost}, hk...)
}

func queueKey(hk string, class QueueClass, due time.Time, seq uint64) []byte {
	b := appendTime(append(withSep(prefixQueue, hk), byte(class)), due)
	return binary.BigEndian.AppendUint64(b, seq)
}

func changeKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixChange}, seq)
}

func statKey(surt string, kind StatKind, at time.Time) []byte {
	b := append(withSep(prefixStat, surt), byte(kind))
	return appendTime(b, at)
}

func bucketKey(name, tail string) []byte {
	b := make([]byte, 0, 2+len(name)+len(tail))
	b = append(b, prefixBucket)
	b = append(b, name...)
	b = append(b, sep)
	return append(b, tail...)
}

func metaKey(name string) []byte {
	return append([]byte{prefixMeta}, name...)
}

// prefixEnd returns the smallest key greater than every key with prefix p,
// the exclusive upper bound of a range scan.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil // p is all 0xff: no upper bound
}

// timeSuffix decodes the 8-byte time that ends key.
func timeSuffix(key []byte) (time.Time, error) {
	if len(key) < 8 {
		return time.Time{}, ErrBadKey
	}
	return decodeTime(key[len(key)-8:]), nil
}
