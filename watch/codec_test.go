package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/notify"
)

// fullRecords are records with every field set, as the codec must keep them.
func fullRecords() map[string]record {
	at := time.Date(2023, 5, 15, 9, 30, 1, 123456789, time.UTC)
	d := &diff.Result{
		Words:    []diff.Op{{Kind: diff.Equal, Text: "opens on", N: 2}, {Kind: diff.Insert, Text: "March 5", N: 2}, {Kind: diff.Delete, Text: "March 3", N: 2}},
		Lines:    []diff.Op{{Kind: diff.Insert, Text: "a line\nanother", N: 2}},
		Links:    diff.SetChange{Added: []string{"https://x.gov/a"}, Removed: []string{"https://x.gov/b", "https://x.gov/c"}},
		Fraction: 0.25,
	}
	c := Change{At: at, URL: "https://x.gov/", Type: Phrase, Kind: "update", Fraction: 0.5, Diff: d, Fired: true, Notification: "w7-17"}
	capped := c
	capped.Diff = &diff.Result{Words: d.Words, Lines: d.Lines, Fraction: d.Fraction,
		Links: diff.SetChange{Added: d.Links.Added, AddedOmitted: 4, RemovedOmitted: 300}}
	spec := Spec{User: "ann", URL: "https://x.gov/", Type: Keywords, Selector: "#main p", Object: "héllo \x00 wörld",
		Keywords: []string{"plain", "language"}, Direction: Appear, Regex: `a+[^<]{0,4}`, MinChange: 0.3, EveryN: 3,
		Every: 90 * time.Minute, Mode: Digest, Period: 24 * time.Hour,
		Notify: []notify.Target{{Kind: notify.Webhook, Addr: "http://127.0.0.1:9/h"}, {Kind: notify.Feed}},
		Start:  at.Add(-time.Hour), Stop: at.Add(365 * 24 * time.Hour)}
	return map[string]record{
		"sentinel": &Sentinel{ID: "w7", Spec: spec, Record: Record{Installed: at.Add(-time.Hour), LastEval: at, LastChange: at,
			LastNotified: at.Add(-time.Minute), Evaluations: 12, Changes: 5, Notifications: 2},
			Pending: []Change{c, {At: at, Kind: "lost", Fraction: 1}}, PendingDropped: 3, NextDigest: at.Add(time.Hour)},
		"table": &table{Spec: spec, Object: Object{Located: true, Sum: "d41d8cd98f00b204e9800998ecf8427e", Text: "the text",
			Set: []string{"a", "b"}, Flag: true, Box: &Box{Before: []string{"x", "y"}, After: []string{"z"}}}},
		"member": &member{ID: "w7", Every: -time.Second},
		"change": &c,
		// Links left out (diff.Result.Capped): a presence byte of 2.
		"capped change": &capped,
		"failures": &failureLog{Runs: []Failure{{First: at, Last: at.Add(time.Hour), Count: 3, Kind: FailStatus, Error: "watch: fetch https://x.gov/: status 503"},
			{First: at.Add(2 * time.Hour), Last: at.Add(2 * time.Hour), Count: 1, Kind: FailTextCut, Error: "héllo"}}},
		"zero": &Sentinel{},
	}
}

// newLike is an empty record of r's type.
func newLike(r record) record { return reflect.New(reflect.TypeOf(r).Elem()).Interface().(record) }

// TestRecordsReadBackAsJSONDid: the binary form reads back exactly what
// the JSON form it replaces read back, field for field.
func TestRecordsReadBackAsJSONDid(t *testing.T) {
	for name, r := range fullRecords() {
		fromJSON, fromBinary := newLike(r), newLike(r)
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeValue("k/"+name, j, fromJSON); err != nil {
			t.Fatalf("%s from JSON: %v", name, err)
		}
		b := encodeRecord(r)
		if b[0] != formatV1 {
			t.Fatalf("%s: format byte %#x", name, b[0])
		}
		if err := decodeValue("k/"+name, b, fromBinary); err != nil {
			t.Fatalf("%s from binary: %v", name, err)
		}
		if !reflect.DeepEqual(fromJSON, fromBinary) {
			t.Errorf("%s:\nfrom JSON   %+v\nfrom binary %+v", name, fromJSON, fromBinary)
		}
		if name != "zero" && len(b) >= len(j) {
			t.Errorf("%s: binary %d bytes, JSON %d", name, len(b), len(j))
		}
	}
}

// TestSharedHistoryPrefix: an entry made from the shared encoding and one
// member's tail is the entry encoded whole.
func TestSharedHistoryPrefix(t *testing.T) {
	c := *fullRecords()["change"].(*Change)
	shared := c.appendShared([]byte{formatV1})
	c.Fired, c.Notification = false, ""
	if got, want := c.appendTail(bytes.Clone(shared)), encodeRecord(&c); !bytes.Equal(got, want) {
		t.Errorf("shared + tail = %x, whole = %x", got, want)
	}
}

// TestBadRecordsNameTheKey: every truncation of a valid record, a wrong
// format byte, trailing bytes and an out-of-range field give an error that
// names the key, never a panic. A sentinel cut just before its optional
// last field, pending_dropped, is the form of older repositories, and
// reads as none dropped.
func TestBadRecordsNameTheKey(t *testing.T) {
	for name, r := range fullRecords() {
		b := encodeRecord(r)
		older := -1
		if s, ok := r.(*Sentinel); ok && s.PendingDropped != 0 {
			without := *s
			without.PendingDropped = 0
			older = len(encodeRecord(&without))
			var got Sentinel
			if err := decodeValue("s/"+name, b[:older], &got); err != nil || got.PendingDropped != 0 || !got.NextDigest.Equal(s.NextDigest) {
				t.Errorf("%s without pending_dropped: %v, %d dropped; want the older form, none dropped", name, err, got.PendingDropped)
			}
		}
		for n := range len(b) {
			if n == older {
				continue
			}
			err := decodeValue("s/"+name, b[:n], newLike(r))
			if err == nil || !strings.Contains(err.Error(), `"s/`+name+`"`) {
				t.Fatalf("%s cut to %d of %d bytes: %v; want an error naming the key", name, n, len(b), err)
			}
		}
		err := decodeValue("s/"+name, append(bytes.Clone(b), 0), newLike(r))
		if err == nil || !strings.Contains(err.Error(), "1 bytes left after the last field") && !strings.Contains(err.Error(), "pending_dropped") {
			t.Errorf("%s with a trailing byte: %v", name, err)
		}
	}
	for _, c := range []struct {
		value []byte
		want  string
	}{
		{[]byte{7, 1, 'a'}, "format byte 0x07"},
		{[]byte{formatV1, 2, 'w', '1', 0x80}, "field every at byte 4: truncated or overlong varint"},
		{[]byte{formatV1, 0xff, 0xff, 0xff, 0x0f}, "field id at byte 5: length 33554431 over the 0 bytes left"},
		{[]byte(`{"id": 3}`), "cannot unmarshal number"},
	} {
		err := decodeValue("n/page\x00t\x00w1", c.value, &member{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"n/page\x00t\x00w1"`) {
			t.Errorf("%q: %v; want an error naming the key and %q", c.value, err, c.want)
		}
	}
	bad := encodeRecord(&Object{Located: true})
	bad[1] = 2
	if err := decodeValue("t/x", bad, &Object{}); err == nil || !strings.Contains(err.Error(), "field located at byte 1: boolean byte 2") {
		t.Errorf("a boolean byte 2: %v", err)
	}
}

// FuzzDecodeRecord decodes arbitrary bytes as every record type: an error
// or a value, never a panic; a value decoded once re-encodes to a form
// that decodes to the same value.
func FuzzDecodeRecord(f *testing.F) {
	for _, r := range fullRecords() {
		f.Add(encodeRecord(r))
		j, _ := json.Marshal(r)
		f.Add(j)
	}
	f.Add([]byte{})
	f.Add([]byte{formatV1})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, r := range fullRecords() {
			v := newLike(r)
			if err := decodeValue("k", b, v); err != nil {
				if !strings.Contains(err.Error(), `"k"`) {
					t.Fatalf("error without the key: %v", err)
				}
				continue
			}
			once := encodeRecord(v)
			w := newLike(r)
			if err := decodeValue("k", once, w); err != nil {
				t.Fatalf("re-encoded %T does not decode: %v", v, err)
			}
			if twice := encodeRecord(w); !bytes.Equal(once, twice) {
				t.Fatalf("%T: re-encoded %x, then %x", v, once, twice)
			}
		}
	})
}

// BenchmarkRecordCodec decodes and re-encodes what a changed page costs
// per sentinel — its table (a words set of 400), its record and its
// history entry — in the JSON form and in the binary form, side by side.
func BenchmarkRecordCodec(b *testing.B) {
	rs := fullRecords()
	tb := rs["table"].(*table)
	tb.Object.Set = nil
	for i := range 400 {
		tb.Object.Set = append(tb.Object.Set, fmt.Sprintf("word%03d", i))
	}
	s := rs["sentinel"].(*Sentinel)
	s.Pending = nil
	values := []record{tb, s, rs["change"]}
	var took [2]time.Duration
	for b.Loop() {
		for i, binaryForm := range []bool{false, true} {
			start := time.Now()
			for _, r := range values {
				var v []byte
				if binaryForm {
					v = encodeRecord(r)
				} else {
					v, _ = json.Marshal(r)
				}
				if err := decodeValue("k", v, newLike(r)); err != nil {
					b.Fatal(err)
				}
			}
			took[i] += time.Since(start)
		}
	}
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N)/1e3, "µs/sentinel-json")
	b.ReportMetric(float64(took[1].Nanoseconds())/float64(b.N)/1e3, "µs/sentinel-binary")
	b.ReportMetric(took[0].Seconds()/took[1].Seconds(), "×binary")
}

func TestHistoryKeyAndNotificationIDAsFmt(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 255, 4096, 1<<40 + 7, math.MaxInt64, -1, -300} {
		if got, want := historyKey("w12", n), fmt.Sprintf("%s%s/%016x", historyPrefix, "w12", n); got != want {
			t.Errorf("historyKey(w12, %d) = %q, want %q", n, got, want)
		}
	}
	for _, at := range []time.Time{time.Unix(0, 0), time.Unix(1700000000, 123456789), time.Unix(0, 1), time.Unix(-5, 0)} {
		for _, prefix := range []string{"", "d"} {
			if got, want := notificationID(prefix, "w7", at), fmt.Sprintf("%s%s-%x", prefix, "w7", at.UnixNano()); got != want {
				t.Errorf("notificationID(%q, w7, %v) = %q, want %q", prefix, at, got, want)
			}
		}
	}
}

// BenchmarkPerSentinelWork times, side by side with the fmt and TrimFunc
// they replace, what a changed page costs per sentinel in history keys
// and notification ids, and per words table in trimmed words: the words
// of 200 real digitalgov-2023 pages.
func BenchmarkPerSentinelWork(b *testing.B) {
	a, err := archive.Open(datasets.Path(b, "archives", "digitalgov-2023"))
	if err != nil {
		b.Fatal(err)
	}
	var words []string
	for i, p := range a.Week(20) {
		if i == 200 {
			break
		}
		u, _ := url.Parse("http://x.test" + p.URL)
		d, err := extract.HTML(p.Body, "text/html", u, testConfig().Extract)
		if err != nil {
			b.Fatal(err)
		}
		for _, w := range strings.Fields(d.Text) {
			words = append(words, strings.ToLower(w))
		}
	}
	at := time.Unix(1700000000, 123456789)
	sink := 0
	run := func(name string, fast, bare func()) {
		var took [2]time.Duration
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for i, f := range []func(){fast, bare} {
					start := time.Now()
					f()
					took[i] += time.Since(start)
				}
			}
			b.ReportMetric(float64(took[1])/float64(took[0]), "×faster")
		})
	}
	run("trim", func() {
		for _, w := range words {
			sink += len(trimPunct(w))
		}
	}, func() {
		for _, w := range words {
			sink += len(strings.TrimFunc(w, isPunct))
		}
	})
	run("keys", func() {
		for n := range 1000 {
			sink += len(historyKey("w12345", n)) + len(notificationID("", "w12345", at))
		}
	}, func() {
		for n := range 1000 {
			sink += len(fmt.Sprintf("%s%s/%016x", historyPrefix, "w12345", n)) + len(fmt.Sprintf("%s%s-%x", "", "w12345", at.UnixNano()))
		}
	})
	if sink == 0 {
		b.Fatal("nothing measured")
	}
}
