package synthweb

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Streaming traps write from small reusable buffers, never holding a body
// in memory, and stop as soon as the request's context ends (the client
// left or the server is shutting down), a write fails, or a write makes no
// progress for streamWriteTimeout (a client that stops reading but keeps
// the connection open).

const (
	streamChunk        = 32 << 10
	streamWriteTimeout = 30 * time.Second // wall time, per write
)

type stream struct {
	ctx context.Context
	rw  http.ResponseWriter
	rc  *http.ResponseController
}

func newStream(rw http.ResponseWriter, r *http.Request) *stream {
	return &stream{ctx: r.Context(), rw: rw, rc: http.NewResponseController(rw)}
}

// write writes each part, returning false as soon as the stream must stop.
func (s *stream) write(parts ...[]byte) bool {
	for _, p := range parts {
		if s.ctx.Err() != nil {
			return false
		}
		err := s.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := s.rw.Write(p); err != nil {
			return false
		}
	}
	return true
}

// repeat writes chunk over and over until n bytes are out.
func (s *stream) repeat(chunk []byte, n int64) bool {
	for n > 0 {
		p := chunk
		if int64(len(p)) > n {
			p = p[:n]
		}
		if !s.write(p) {
			return false
		}
		n -= int64(len(p))
	}
	return true
}

// flush pushes buffered bytes to the client.
func (s *stream) flush() bool { return s.rc.Flush() == nil }

func filled(text string, size int) []byte {
	return bytes.Repeat([]byte(text), size/len(text)+1)[:size]
}

// serveDrip writes a few bytes a second until the client goes away.
func serveDrip(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	s := newStream(rw, r)
	if !s.write([]byte("<!DOCTYPE html>\n<html><head><title>Drip</title></head><body>\n")) || !s.flush() {
		return
	}
	tick := time.NewTicker(dripInterval)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		if !s.write([]byte(dripChunk)) || !s.flush() {
			return
		}
	}
}

// serveHuge streams hugeBodySize bytes of HTML with an honest Content-Length.
func serveHuge(rw http.ResponseWriter, r *http.Request) {
	serveSized(rw, r, htmlType, hugeBodySize, "<!DOCTYPE html>\n<html><head><title>Huge</title></head><body>\n",
		"<p>All work and no play makes a very long page.</p>\n")
}

// serveSized streams head and then filler over and over, size bytes in
// all, with an honest Content-Length.
func serveSized(rw http.ResponseWriter, r *http.Request, ctype string, size int, head, filler string) {
	rw.Header().Set("Content-Type", ctype)
	rw.Header().Set("Content-Length", strconv.Itoa(size))
	if r.Method == http.MethodHead {
		return
	}
	s := newStream(rw, r)
	if s.write([]byte(head)) {
		s.repeat(filled(filler, streamChunk), int64(size-len(head)))
	}
}

// bombMember is one gzip member holding bombMemberSize spaces (about 16 KiB
// compressed), built once per Web on first use.
func (w *Web) bombMember() []byte {
	w.bomb.once.Do(func() {
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return // BestCompression is a valid level
		}
		chunk := bytes.Repeat([]byte{' '}, 64<<10)
		for range bombMemberSize / len(chunk) {
			if _, err := zw.Write(chunk); err != nil {
				return
			}
		}
		if err := zw.Close(); err != nil {
			return
		}
		w.bomb.member = buf.Bytes()
	})
	return w.bomb.member
}

// serveBomb sends bombMembers copies of one gzip member as one
// Content-Encoding: gzip body. RFC 1952 allows concatenated members and
// gzip readers join them, so 4 MiB on the wire inflate to 4 GiB.
func (w *Web) serveBomb(rw http.ResponseWriter, r *http.Request) {
	member := w.bombMember()
	if member == nil {
		http.Error(rw, "bomb unavailable", http.StatusInternalServerError)
		return
	}
	h := rw.Header()
	h.Set("Content-Type", htmlType)
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(len(member)*bombMembers))
	if r.Method == http.MethodHead {
		return
	}
	s := newStream(rw, r)
	for range bombMembers {
		if !s.write(member) {
			return
		}
	}
}

// serveHugeRobots sends a valid robots.txt group followed by 32 MiB of rules.
func serveHugeRobots(rw http.ResponseWriter, r *http.Request) {
	serveSized(rw, r, "text/plain; charset=utf-8", hugeRobotsSize, "User-agent: *\nDisallow: /private/\n",
		"Disallow: /filler/of/a/very/large/robots/file/\n")
}

// serveManyLinks streams a page of manyLinks links.
func serveManyLinks(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	s := newStream(rw, r)
	buf := bytes.NewBufferString("<!DOCTYPE html>\n<html><head><title>Many links</title></head><body>\n<ul>\n")
	for i := range manyLinks {
		fmt.Fprintf(buf, "<li><a href=\"/links/many/%d\">item %d</a></li>\n", i, i)
		if buf.Len() >= streamChunk {
			if !s.write(buf.Bytes()) {
				return
			}
			buf.Reset()
		}
	}
	buf.WriteString("</ul>\n</body></html>\n")
	s.write(buf.Bytes())
}

// serveDeepNesting streams deepNesting unclosed <div>s with a link at the bottom.
func serveDeepNesting(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	s := newStream(rw, r)
	const div = "<div>"
	if s.write([]byte("<!DOCTYPE html>\n<html><head><title>Deep</title></head><body>\n")) &&
		s.repeat(filled(div, 1000*len(div)), int64(deepNesting*len(div))) {
		s.write([]byte("<p>At the bottom. <a href=\"/\">home</a></p>\n"))
	}
}

// serveGiantAttr streams an 8 MiB attribute value and a 64 KiB attribute name.
func serveGiantAttr(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	s := newStream(rw, r)
	if s.write([]byte("<!DOCTYPE html>\n<html><head><title>Attributes</title></head><body>\n<a href=\"/\" title=\"")) &&
		s.repeat(filled("x", streamChunk), giantAttrSize) &&
		s.write([]byte("\">home</a>\n<p ")) &&
		s.repeat(filled("d", streamChunk), giantAttrNameSize) {
		s.write([]byte("=\"1\">odd</p>\n<a href=\"/deep/\">deeper</a>\n</body></html>\n"))
	}
}
