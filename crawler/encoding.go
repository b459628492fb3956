package crawler

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The transport asks for gzip and undoes only a Content-Encoding of
// exactly "gzip"; whatever else a server sends (deflate, x-gzip, a
// stacked list, one it was not asked for) reaches the fetcher still
// encoded. Stored as it came, it would be indexed as garbage, so the
// fetcher undoes the codings it knows and fails the page on any other.

// maxCodings is the most codings one Content-Encoding may stack; each is
// a decompressor in the read path, and servers stack two at most.
const maxCodings = 4

// encodingError is a body the fetcher could not decode: its
// Content-Encoding names a coding it does not know, stacks more than
// maxCodings, or the body is not what the coding says.
type encodingError struct {
	Value string // the Content-Encoding, as sent
	Err   error
}

func (e *encodingError) Error() string {
	return fmt.Sprintf("Content-Encoding %q: %v", e.Value, e.Err)
}

func (e *encodingError) Unwrap() error { return e.Err }

// limitError is a body over the fetcher's limit: decoded, or as sent.
type limitError struct {
	what  string // "body", or which body when it was encoded
	key   string // the setting, e.g. crawler.limits.max_body_bytes
	limit int
}

func (e *limitError) Error() string {
	return fmt.Sprintf("%s over %s (%d bytes)", e.what, e.key, e.limit)
}

// contentEncoding is a response's Content-Encoding, its header lines
// joined, and its codings in the order the server applied them, lower
// case, without "identity" (which changes nothing). An error names a
// coding the fetcher cannot undo, or too many.
func contentEncoding(h http.Header) (value string, codings []string, err error) {
	value = strings.Join(h.Values("Content-Encoding"), ", ")
	for _, c := range strings.Split(value, ",") {
		switch c = strings.ToLower(strings.TrimSpace(c)); c {
		case "", "identity":
		case "gzip", "x-gzip", "deflate":
			codings = append(codings, c)
		default:
			return value, nil, &encodingError{Value: value, Err: fmt.Errorf("coding %q is none the crawler decodes (gzip, x-gzip, deflate, identity)", c)}
		}
	}
	if len(codings) > maxCodings {
		return value, nil, &encodingError{Value: value, Err: fmt.Errorf("%d codings stacked, more than %d", len(codings), maxCodings)}
	}
	return value, codings, nil
}

// decoder reads a body with its codings undone. It reads at most limit
// bytes as sent, and tells a failure of the connection (returned as it
// is) from a body that does not decode (an *encodingError).
type decoder struct {
	raw     sentReader
	value   string
	codings []string
	r       io.Reader // the decoded body, built on the first Read
	err     error
}

func newDecoder(body io.Reader, value string, codings []string, limit int, over *limitError) *decoder {
	return &decoder{raw: sentReader{r: body, left: limit, over: over}, value: value, codings: codings}
}

func (d *decoder) Read(p []byte) (int, error) {
	if d.r == nil && d.err == nil {
		d.r, d.err = d.chain()
		d.err = d.blame(d.err)
	}
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		d.err = d.blame(err)
		err = d.err
	}
	return n, err
}

// chain stacks a decompressor per coding, the last applied outermost. A
// body that is empty as sent decodes to nothing, whatever its codings.
func (d *decoder) chain() (io.Reader, error) {
	br := bufio.NewReader(&d.raw)
	if _, err := br.Peek(1); err == io.EOF {
		return br, nil
	}
	r := io.Reader(br)
	for i := len(d.codings) - 1; i >= 0; i-- {
		var err error
		if d.codings[i] == "deflate" {
			r, err = inflate(r)
		} else {
			r, err = gzip.NewReader(r)
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// blame returns the error of the connection, or the limit, if the body as
// sent ended in one; else err is the coding's.
func (d *decoder) blame(err error) error {
	switch {
	case err == nil:
		return nil
	case d.raw.err != nil:
		return d.raw.err
	case errors.Is(err, io.EOF):
		err = io.ErrUnexpectedEOF // the body ended inside a coding
	}
	return &encodingError{Value: d.value, Err: err}
}

// inflate reads "deflate", which servers send both as the RFC 1950 zlib
// stream the name means and as the bare RFC 1951 data inside it; the
// zlib header tells them apart, as browsers tell them.
func inflate(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	h, err := br.Peek(2)
	if len(h) == 2 && h[0]&0x0f == 8 && h[0]>>4 <= 7 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	return flate.NewReader(br), nil
}

// sentReader reads a body as it was sent, failing with over once more
// than left bytes come, and keeps the connection's error for blame.
type sentReader struct {
	r    io.Reader
	left int
	over *limitError
	err  error // the first error other than io.EOF
}

func (s *sentReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.left <= 0 {
		s.err = s.over
		return 0, s.err
	}
	n, err := s.r.Read(p[:min(len(p), s.left)])
	s.left -= n
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}
