package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestWrittenRecordsAreWellFormedWARC(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	at := time.Date(2026, 3, 1, 12, 0, 0, 500, time.UTC)
	if err := w.Info(at, "deltaq test"); err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]byte{
		"http://a.test/":  []byte("<html><body>héllo\r\n\r\nWARC/1.1 in a body</body></html>"),
		"http://a.test/e": nil,
	}
	for _, u := range []string{"http://a.test/", "http://a.test/e"} {
		if err := w.Response(u, at, 200, "text/html; charset=utf-8", bodies[u]); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0].Header["WARC-Type"] != "warcinfo" {
		t.Fatalf("%d records, first %v", len(recs), recs[0].Header)
	}
	ids := map[string]bool{}
	for _, rec := range recs {
		ids[rec.Header["WARC-Record-ID"]] = true
	}
	if len(ids) != 3 {
		t.Errorf("record ids not unique: %v", ids)
	}
	for _, rec := range recs[1:] {
		u := rec.Header["WARC-Target-URI"]
		if rec.Header["WARC-Type"] != "response" || rec.Header["Content-Type"] != "application/http;msgtype=response" {
			t.Errorf("%s: header %v", u, rec.Header)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rec.Block)), nil)
		if err != nil {
			t.Fatalf("%s: block is not an HTTP response: %v", u, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || !bytes.Equal(body, bodies[u]) {
			t.Errorf("%s: status %d, type %q, body %q (%v)", u, resp.StatusCode, resp.Header.Get("Content-Type"), body, err)
		}
	}
	// The same records give the same bytes.
	var again bytes.Buffer
	w = NewWriter(&again)
	w.Info(at, "deltaq test")
	for _, u := range []string{"http://a.test/", "http://a.test/e"} {
		w.Response(u, at, 200, "text/html; charset=utf-8", bodies[u])
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("two exports of the same records differ")
	}
}

func TestReadRejectsMalformedRecords(t *testing.T) {
	var buf bytes.Buffer
	NewWriter(&buf).Response("http://a.test/", time.Unix(0, 0), 200, "text/html", []byte("body"))
	good := buf.String()
	cases := map[string]string{
		"version":        strings.Replace(good, "WARC/1.1", "WARC/0.9", 1),
		"short block":    regexp.MustCompile(`Content-Length: \d+\r\n\r\nHTTP`).ReplaceAllString(good, "Content-Length: 9999\r\n\r\nHTTP"),
		"digest":         strings.Replace(good, "body", "BODY", 1),
		"missing date":   strings.Replace(good, "WARC-Date", "X-Date", 1),
		"no end":         strings.TrimSuffix(good, "\r\n\r\n"),
		"bare LF header": strings.Replace(good, "WARC-Type: response\r\n", "WARC-Type: response\n", 1),
	}
	for name, data := range cases {
		if data == good {
			t.Fatalf("%s: the case changes nothing", name)
		}
		if _, err := Read(strings.NewReader(data)); err == nil {
			t.Errorf("%s: malformed record read without error", name)
		}
	}
}

// TestGzipWriterWritesAMemberPerRecord writes .warc.gz: each record is a
// gzip member of its own that decompresses, alone, to the record the
// plain writer writes, and Read reads the file whole.
func TestGzipWriterWritesAMemberPerRecord(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// write writes the same three records with w, calling after each.
	write := func(w *Writer, after func()) {
		w.Info(at, "deltaq test")
		after()
		for _, u := range []string{"http://a.test/", "http://a.test/b"} {
			if err := w.Response(u, at, 200, "text/html", []byte("<p>"+u+"</p>")); err != nil {
				t.Fatal(err)
			}
			after()
		}
	}
	var plain, packed bytes.Buffer
	write(NewWriter(&plain), func() {})
	var ends []int // where each member ends in packed
	write(NewGzipWriter(&packed), func() { ends = append(ends, packed.Len()) })
	var members [][]byte
	for i, end := range ends {
		start := 0
		if i > 0 {
			start = ends[i-1]
		}
		zr, err := gzip.NewReader(bytes.NewReader(packed.Bytes()[start:end]))
		if err != nil {
			t.Fatalf("member %d: %v", i, err)
		}
		zr.Multistream(false)
		m, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("member %d: %v", i, err)
		}
		members = append(members, m)
	}
	if got := bytes.Join(members, nil); !bytes.Equal(got, plain.Bytes()) {
		t.Fatalf("the members decompress to %q, want the plain records %q", got, plain.Bytes())
	}
	recs, err := Read(bytes.NewReader(packed.Bytes()))
	if err != nil || len(recs) != 3 || recs[2].Header["WARC-Target-URI"] != "http://a.test/b" {
		t.Fatalf("Read of the .warc.gz: %d records, %v", len(recs), err)
	}
}
