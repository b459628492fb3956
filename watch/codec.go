package watch

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/notify"
)

// Sentinels (s/), tables (t/), members (n/) and history entries (h/) are
// read and written for every sentinel on a changed page, so they are
// stored in a compact binary form rather than JSON: one format byte, then
// the fields in a fixed order, with no names. Integers and durations are
// varints (zig-zag when signed), lengths and counts uvarints, float64s 8
// bytes little-endian, booleans one byte 0 or 1, strings a length and the
// bytes, string lists a count and the strings, times Unix seconds
// (varint) and nanoseconds (uvarint), read back in UTC. An optional part
// (a phrase's box, a change's diff) starts with a presence byte.
//
// A value whose first byte is '{' is the JSON of repositories written
// before, read as it was; it is written back in the binary form the next
// time it changes, so no migration pass is needed.
const (
	formatJSON byte = '{'
	formatV1   byte = 1
)

// record is a value stored in the binary form.
type record interface {
	appendRecord(b []byte) []byte // the fields, after the format byte
	readRecord(d *decoder)
}

// encodeRecord is v's stored form.
func encodeRecord(v record) []byte { return v.appendRecord([]byte{formatV1}) }

// decodeValue reads a stored value into v: the binary form when v is a
// record and the value says so, JSON otherwise.
func decodeValue(key string, b []byte, v any) error {
	r, ok := v.(record)
	if !ok || (len(b) > 0 && b[0] == formatJSON) {
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("watch: decode %q: %w", key, err)
		}
		return nil
	}
	if len(b) == 0 {
		return fmt.Errorf("watch: decode %q: empty value", key)
	}
	if b[0] != formatV1 {
		return fmt.Errorf("watch: decode %q: format byte 0x%02x: want 0x%02x (binary v1) or '{' (JSON)", key, b[0], formatV1)
	}
	d := &decoder{b: b, s: string(b), off: 1}
	r.readRecord(d)
	if d.err == nil && d.off != len(d.b) {
		d.err = fmt.Errorf("%d bytes left after the last field", len(d.b)-d.off)
	}
	if d.err != nil {
		return fmt.Errorf("watch: decode %q (%d bytes): %w", key, len(b), d.err)
	}
	return nil
}

// decoder reads the binary form. The first error sticks: later reads
// return zero values, and the error names the field and the offset.
// Strings are cut from one copy of the whole value, s, so that a table's
// word set costs one allocation rather than one per word.
type decoder struct {
	b   []byte
	s   string
	off int
	err error
}

func (d *decoder) fail(field, format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("field %s at byte %d: %s", field, d.off, fmt.Sprintf(format, args...))
	}
}

// more says whether bytes are left: an optional last field follows.
func (d *decoder) more() bool { return d.err == nil && d.off < len(d.b) }

func (d *decoder) uvarint(field string) uint64 { return readVarint(d, field, binary.Uvarint) }

func (d *decoder) varint(field string) int64 { return readVarint(d, field, binary.Varint) }

// readVarint reads one varint with read (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](d *decoder, field string, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b[d.off:])
	if n <= 0 {
		d.fail(field, "truncated or overlong varint")
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) int(field string) int { return int(d.varint(field)) }

func (d *decoder) duration(field string) time.Duration { return time.Duration(d.varint(field)) }

// count reads a length or a count, which cannot exceed the bytes left:
// every counted item takes at least one.
func (d *decoder) count(field string) int {
	n := d.uvarint(field)
	if left := len(d.b) - d.off; n > uint64(left) {
		d.fail(field, "length %d over the %d bytes left", n, left)
		return 0
	}
	return int(n)
}

func (d *decoder) string(field string) string {
	n := d.count(field)
	if d.err != nil {
		return ""
	}
	v := d.s[d.off : d.off+n]
	d.off += n
	return v
}

// strings reads a list; an empty one is nil, as JSON's omitempty gave.
func (d *decoder) strings(field string) []string {
	n := d.count(field)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.string(field)
	}
	if d.err != nil {
		return nil
	}
	return out
}

func (d *decoder) float(field string) float64 {
	if d.err != nil {
		return 0
	}
	if len(d.b)-d.off < 8 {
		d.fail(field, "truncated float64")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
	d.off += 8
	return v
}

func (d *decoder) bool(field string) bool { return d.small(field, 1) == 1 }

// small reads one byte in [0, max]: a boolean, or a presence that says
// which fields follow.
func (d *decoder) small(field string, max byte) byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.b) {
		d.fail(field, "truncated byte")
		return 0
	}
	v := d.b[d.off]
	if v > max && max == 1 {
		d.fail(field, "boolean byte %d: want 0 or 1", v)
		return 0
	}
	if v > max {
		d.fail(field, "byte %d: want 0 to %d", v, max)
		return 0
	}
	d.off++
	return v
}

func (d *decoder) time(field string) time.Time {
	sec, nsec := d.varint(field), d.uvarint(field)
	if nsec >= 1e9 {
		d.fail(field, "nanoseconds %d: want under 1e9", nsec)
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

func appendInt(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

func appendFloat(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendTime(b []byte, t time.Time) []byte {
	return binary.AppendUvarint(binary.AppendVarint(b, t.Unix()), uint64(t.Nanosecond()))
}

// Spec: user, url, type, selector, object, keywords, direction, regex,
// min_change, every_n, every, mode, period, notify (count, then kind and
// addr each), start, stop.
func (s *Spec) appendRecord(b []byte) []byte {
	for _, v := range []string{s.User, s.URL, string(s.Type), s.Selector, s.Object} {
		b = appendString(b, v)
	}
	b = appendStrings(b, s.Keywords)
	b = appendString(b, string(s.Direction))
	b = appendString(b, s.Regex)
	b = appendFloat(b, s.MinChange)
	b = appendInt(b, int64(s.EveryN))
	b = appendInt(b, int64(s.Every))
	b = appendString(b, string(s.Mode))
	b = appendInt(b, int64(s.Period))
	b = binary.AppendUvarint(b, uint64(len(s.Notify)))
	for _, t := range s.Notify {
		b = appendString(appendString(b, string(t.Kind)), t.Addr)
	}
	return appendTime(appendTime(b, s.Start), s.Stop)
}

func (s *Spec) readRecord(d *decoder) {
	s.User = d.string("user")
	s.URL = d.string("url")
	s.Type = Type(d.string("type"))
	s.Selector = d.string("selector")
	s.Object = d.string("object")
	s.Keywords = d.strings("keywords")
	s.Direction = Direction(d.string("direction"))
	s.Regex = d.string("regex")
	s.MinChange = d.float("min_change")
	s.EveryN = d.int("every_n")
	s.Every = d.duration("every")
	s.Mode = Mode(d.string("mode"))
	s.Period = d.duration("period")
	if n := d.count("notify"); n > 0 {
		s.Notify = make([]notify.Target, n)
		for i := range s.Notify {
			s.Notify[i] = notify.Target{Kind: notify.TargetKind(d.string("notify.kind")), Addr: d.string("notify.addr")}
		}
	}
	s.Start = d.time("start")
	s.Stop = d.time("stop")
}

// Sentinel: id, spec, installed, last_eval, last_change, last_notified,
// evaluations, changes, notifications, pending (count, then changes),
// next_digest, and pending_dropped when it is not 0 (a record ending at
// next_digest has none dropped: the form of repositories written before).
func (s *Sentinel) appendRecord(b []byte) []byte {
	b = s.Spec.appendRecord(appendString(b, s.ID))
	for _, t := range []time.Time{s.Installed, s.LastEval, s.LastChange, s.LastNotified} {
		b = appendTime(b, t)
	}
	for _, n := range []int{s.Evaluations, s.Changes, s.Notifications} {
		b = appendInt(b, int64(n))
	}
	b = binary.AppendUvarint(b, uint64(len(s.Pending)))
	for i := range s.Pending {
		b = s.Pending[i].appendRecord(b)
	}
	b = appendTime(b, s.NextDigest)
	if s.PendingDropped != 0 {
		b = appendInt(b, int64(s.PendingDropped))
	}
	return b
}

func (s *Sentinel) readRecord(d *decoder) {
	s.ID = d.string("id")
	s.Spec.readRecord(d)
	s.Installed = d.time("installed")
	s.LastEval = d.time("last_eval")
	s.LastChange = d.time("last_change")
	s.LastNotified = d.time("last_notified")
	s.Evaluations = d.int("evaluations")
	s.Changes = d.int("changes")
	s.Notifications = d.int("notifications")
	if n := d.count("pending"); n > 0 {
		s.Pending = make([]Change, n)
		for i := range s.Pending {
			s.Pending[i].readRecord(d)
		}
	}
	s.NextDigest = d.time("next_digest")
	if d.more() {
		if s.PendingDropped = d.int("pending_dropped"); s.PendingDropped <= 0 && d.err == nil {
			d.fail("pending_dropped", "%d: written only when above 0", s.PendingDropped)
		}
	}
}

// Object: located, sum, text, set, flag, box (presence, before, after).
func (o *Object) appendRecord(b []byte) []byte {
	b = appendString(appendString(appendBool(b, o.Located), o.Sum), o.Text)
	b = appendBool(appendStrings(b, o.Set), o.Flag)
	if o.Box == nil {
		return append(b, 0)
	}
	return appendStrings(appendStrings(append(b, 1), o.Box.Before), o.Box.After)
}

func (o *Object) readRecord(d *decoder) {
	o.Located = d.bool("located")
	o.Sum = d.string("sum")
	o.Text = d.string("text")
	o.Set = d.strings("set")
	o.Flag = d.bool("flag")
	if d.bool("box") {
		o.Box = &Box{Before: d.strings("box.before"), After: d.strings("box.after")}
	}
}

// table: spec, object.
func (t *table) appendRecord(b []byte) []byte { return t.Object.appendRecord(t.Spec.appendRecord(b)) }

func (t *table) readRecord(d *decoder) {
	t.Spec.readRecord(d)
	t.Object.readRecord(d)
}

// keptText: sum, text, anchors.
func (k *keptText) appendRecord(b []byte) []byte {
	return appendStrings(appendString(appendString(b, k.Sum), k.Text), k.Anchors)
}

func (k *keptText) readRecord(d *decoder) {
	k.Sum = d.string("sum")
	k.Text = d.string("text")
	k.Anchors = d.strings("anchors")
}

// member: id, every.
func (m *member) appendRecord(b []byte) []byte {
	return appendInt(appendString(b, m.ID), int64(m.Every))
}

func (m *member) readRecord(d *decoder) {
	m.ID = d.string("id")
	m.Every = d.duration("every")
}

// Change: at, url, type, kind, fraction, diff (presence, then words and
// lines as ops, links added and removed, with presence 2 the counts of
// links added and removed left out, then fraction), fired, notification.
// Fired and notification come last: they are all that differs between
// the history entries a change writes for the members of one table
// (appendShared).
func (c *Change) appendRecord(b []byte) []byte {
	return c.appendTail(c.appendShared(b))
}

// appendShared appends the fields every member's entry of a change shares.
func (c *Change) appendShared(b []byte) []byte {
	b = appendTime(b, c.At)
	b = appendString(appendString(appendString(b, c.URL), string(c.Type)), c.Kind)
	b = appendFloat(b, c.Fraction)
	if c.Diff == nil {
		return append(b, 0)
	}
	links := c.Diff.Links
	presence := byte(1)
	if links.Omitted() > 0 {
		presence = 2
	}
	b = appendOps(appendOps(append(b, presence), c.Diff.Words), c.Diff.Lines)
	b = appendStrings(appendStrings(b, links.Added), links.Removed)
	if presence == 2 {
		b = appendInt(appendInt(b, int64(links.AddedOmitted)), int64(links.RemovedOmitted))
	}
	return appendFloat(b, c.Diff.Fraction)
}

// appendTail appends the fields of one member's entry.
func (c *Change) appendTail(b []byte) []byte {
	return appendString(appendBool(b, c.Fired), c.Notification)
}

func (c *Change) readRecord(d *decoder) {
	c.At = d.time("at")
	c.URL = d.string("url")
	c.Type = Type(d.string("type"))
	c.Kind = d.string("kind")
	c.Fraction = d.float("fraction")
	if presence := d.small("diff", 2); presence > 0 {
		c.Diff = &diff.Result{Words: readOps(d, "diff.words"), Lines: readOps(d, "diff.lines")}
		c.Diff.Links.Added = d.strings("diff.links.added")
		c.Diff.Links.Removed = d.strings("diff.links.removed")
		if presence == 2 {
			c.Diff.Links.AddedOmitted = d.int("diff.links.added_omitted")
			c.Diff.Links.RemovedOmitted = d.int("diff.links.removed_omitted")
		}
		c.Diff.Fraction = d.float("diff.fraction")
	}
	c.Fired = d.bool("fired")
	c.Notification = d.string("notification")
}

// failureLog: count, then each run: first, last, count, kind, error.
func (l *failureLog) appendRecord(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(l.Runs)))
	for _, f := range l.Runs {
		b = appendTime(appendTime(b, f.First), f.Last)
		b = appendString(appendString(appendInt(b, int64(f.Count)), f.Kind), f.Error)
	}
	return b
}

func (l *failureLog) readRecord(d *decoder) {
	if n := d.count("runs"); n > 0 {
		l.Runs = make([]Failure, n)
		for i := range l.Runs {
			f := &l.Runs[i]
			f.First = d.time("run.first")
			f.Last = d.time("run.last")
			f.Count = d.int("run.count")
			f.Kind = d.string("run.kind")
			f.Error = d.string("run.error")
		}
	}
}

func appendOps(b []byte, ops []diff.Op) []byte {
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		b = appendInt(appendString(appendString(b, string(op.Kind)), op.Text), int64(op.N))
	}
	return b
}

func readOps(d *decoder, field string) []diff.Op {
	n := d.count(field)
	if n == 0 {
		return nil
	}
	ops := make([]diff.Op, n)
	for i := range ops {
		ops[i] = diff.Op{Kind: diff.Kind(d.string("op.kind")), Text: d.string("op.text"), N: d.int("op.n")}
	}
	if d.err != nil {
		return nil
	}
	return ops
}
