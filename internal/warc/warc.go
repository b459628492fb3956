package warc

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Writer writes WARC records to an io.Writer.
type Writer struct {
	w  io.Writer
	gz *gzip.Writer // nil: records uncompressed
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// NewGzipWriter returns a Writer on w that compresses each record as a
// gzip member of its own (ISO 28500 Annex D, the .warc.gz convention), so
// that a reader can start at any record's offset.
func NewGzipWriter(w io.Writer) *Writer { return &Writer{w: w, gz: gzip.NewWriter(io.Discard)} }

// Info writes the warcinfo record that opens a file: who wrote it.
func (w *Writer) Info(at time.Time, software string) error {
	fields := "software: " + software + "\r\nformat: WARC File Format 1.1\r\n"
	return w.record("warcinfo", "", at, "application/warc-fields", []byte(fields))
}

// Response writes a response record for one version of url: the HTTP
// response with its status, Content-Type and body.
func (w *Writer) Response(url string, at time.Time, status int, contentType string, body []byte) error {
	var block bytes.Buffer
	fmt.Fprintf(&block, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	if contentType != "" {
		fmt.Fprintf(&block, "Content-Type: %s\r\n", contentType)
	}
	fmt.Fprintf(&block, "Content-Length: %d\r\n\r\n", len(body))
	block.Write(body)
	return w.record("response", url, at, "application/http;msgtype=response", block.Bytes())
}

func (w *Writer) record(kind, url string, at time.Time, contentType string, block []byte) error {
	var h bytes.Buffer
	h.WriteString("WARC/1.1\r\n")
	fmt.Fprintf(&h, "WARC-Type: %s\r\n", kind)
	fmt.Fprintf(&h, "WARC-Record-ID: <urn:uuid:%s>\r\n", recordID(kind, url, at))
	fmt.Fprintf(&h, "WARC-Date: %s\r\n", at.UTC().Format(time.RFC3339Nano))
	if url != "" {
		fmt.Fprintf(&h, "WARC-Target-URI: %s\r\n", url)
	}
	sum := sha1.Sum(block)
	fmt.Fprintf(&h, "WARC-Block-Digest: sha1:%s\r\n", base32.StdEncoding.EncodeToString(sum[:]))
	fmt.Fprintf(&h, "Content-Type: %s\r\n", contentType)
	fmt.Fprintf(&h, "Content-Length: %d\r\n\r\n", len(block))
	h.Write(block)
	h.WriteString("\r\n\r\n")
	if err := w.write(h.Bytes()); err != nil {
		return fmt.Errorf("warc: write %s record: %w", kind, err)
	}
	return nil
}

// write writes one whole record, as a gzip member of its own when w
// compresses.
func (w *Writer) write(record []byte) error {
	if w.gz == nil {
		_, err := w.w.Write(record)
		return err
	}
	w.gz.Reset(w.w)
	if _, err := w.gz.Write(record); err != nil {
		return err
	}
	return w.gz.Close()
}

// recordID is a name-based (version 5 style, SHA-1) UUID of the record's
// kind, URL and date: unique per record, the same on every export.
func recordID(kind, url string, at time.Time) string {
	s := sha1.Sum([]byte(kind + "\x00" + url + "\x00" + at.UTC().Format(time.RFC3339Nano)))
	s[6] = s[6]&0x0f | 0x50
	s[8] = s[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}
