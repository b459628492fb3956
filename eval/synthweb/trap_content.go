package synthweb

import (
	"net/http"
	"strconv"
	"time"

	"golang.org/x/text/encoding/japanese"
)

// serveMalformed: /malformed/{unclosed,deep,attr,nul}.
func serveMalformed(rw http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/malformed/unclosed":
		writeSmall(rw, htmlType, malformedUnclosed)
	case "/malformed/deep":
		serveDeepNesting(rw, r)
	case "/malformed/attr":
		serveGiantAttr(rw, r)
	case "/malformed/nul":
		writeSmall(rw, htmlType, malformedNUL)
	default:
		http.NotFound(rw, r)
	}
}

// malformedUnclosed: no closing tags, misnesting, unquoted and duplicate
// attributes, a stray end tag, an unterminated comment and attribute.
const malformedUnclosed = `<html><head><title>Unclosed<body>
<p>A paragraph <b>bold <i>both</b> italic</i> <a href=/deep/ class=x class=y>deeper
<div><span><table><tr><td>cell<td>cell <a href='/'>home
</div></span></p></html></html>
<ul><li>one<li>two <a href="/links/many/7">seven
<select><option>a<option>b
<!-- a comment that never ends <a href="/never">hidden</a>
<a href="/calendar/2024/01/ title="unterminated>`

// malformedNUL puts NUL bytes in text, in a tag name, in an attribute name
// and inside an attribute value.
const malformedNUL = "<!DOCTYPE html>\n<html><head><title>N\x00UL</title></head><body>\n" +
	"<p>before\x00after</p>\n<a\x00 href=\"/\">home</a>\n<a hr\x00ef=\"/deep/\">deep</a>\n" +
	"<a href=\"/links/\x00unsafe\">nul in url</a>\n<p>\x00\x00\x00</p>\n<a href=\"/malformed/unclosed\">unclosed</a>\n</body></html>\n"

// serveCharset: /charset/latin1 and /charset/sjis, whose header, meta
// declaration and bytes all disagree.
func serveCharset(rw http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/charset/latin1":
		// Latin-1 bytes (é = 0xE9 …), invalid as UTF-8.
		writeSmall(rw, htmlType, "<!DOCTYPE html>\n<html><head><meta charset=\"shift_jis\"><title>Caf\xe9</title></head><body>\n"+
			"<p>Caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve fa\xe7ade, Z\xfcrich, se\xf1or, \xa9 \xbd.</p>\n<a href=\"/\">home</a>\n</body></html>\n")
	case "/charset/sjis":
		text, err := japanese.ShiftJIS.NewEncoder().String("日本語のページです。東京は晴れ、大阪は雨。")
		if err != nil {
			http.Error(rw, "encoding: "+err.Error(), http.StatusInternalServerError)
			return
		}
		writeSmall(rw, htmlType, "<!DOCTYPE html>\n<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">"+
			"<title>"+text+"</title></head><body>\n<p>"+text+"</p>\n<a href=\"/\">home</a>\n</body></html>\n")
	default:
		http.NotFound(rw, r)
	}
}

// serveBinary sends random bytes behind a PNG signature as text/html.
func (w *Web) serveBinary(rw http.ResponseWriter) {
	b := make([]byte, binarySize)
	r := newRand(uint64(w.opts.Seed), tagTrap, 1)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	copy(b, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	writeSmall(rw, htmlType, string(b))
}

// serveLimit: /limit/{429,503}/{seconds,date} always refuse, with
// Retry-After as delay-seconds or as an HTTP-date.
func serveLimit(rw http.ResponseWriter, r *http.Request, now time.Time) {
	var code int
	var after string
	switch r.URL.Path {
	case "/limit/429/seconds":
		code, after = http.StatusTooManyRequests, strconv.Itoa(retryAfterSeconds)
	case "/limit/429/date":
		code, after = http.StatusTooManyRequests, now.Add(retryAfterSeconds*time.Second).UTC().Format(http.TimeFormat)
	case "/limit/503/seconds":
		code, after = http.StatusServiceUnavailable, strconv.Itoa(retryAfterSeconds)
	case "/limit/503/date":
		code, after = http.StatusServiceUnavailable, now.Add(retryAfterSeconds*time.Second).UTC().Format(http.TimeFormat)
	default:
		http.NotFound(rw, r)
		return
	}
	rw.Header().Set("Retry-After", after)
	http.Error(rw, http.StatusText(code), code)
}

// serveBurst: /burst/N (1 ≤ N ≤ 100) link to each other; beyond burstLimit
// requests in one wall second (by the web's clock) they answer 429 with
// Retry-After: 1. This is the only state a request changes.
func (w *Web) serveBurst(rw http.ResponseWriter, r *http.Request, now time.Time) {
	s := r.URL.Path[len("/burst/"):]
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 100 || strconv.Itoa(n) != s {
		http.NotFound(rw, r)
		return
	}
	w.burst.mu.Lock()
	if sec := now.Unix(); sec != w.burst.second {
		w.burst.second, w.burst.n = sec, 0
	}
	w.burst.n++
	over := w.burst.n > burstLimit
	w.burst.mu.Unlock()
	if over {
		rw.Header().Set("Retry-After", "1")
		http.Error(rw, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
		return
	}
	next := func(k int) string { return strconv.Itoa((n+k-1)%100 + 1) }
	writeSmall(rw, htmlType, smallPage("Burst "+s,
		`<a href="/burst/`+next(1)+`">next</a> <a href="/burst/`+next(2)+`">skip</a> <a href="/burst/`+next(3)+`">jump</a>`))
}
