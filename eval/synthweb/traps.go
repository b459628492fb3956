package synthweb

import (
	"html"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Trap is one adversarial URL and what a robust crawler does with it.
type Trap struct {
	Name   string // short stable name, e.g. "redirect-loop"
	URL    string // absolute, no port; linked from http://trap.synth.test/
	Expect string // the behaviour a robust crawler shows
}

// Sizes of the traps. They are the traps' specification, not settings: a
// crawler test asserts it survives exactly these.
const (
	dripInterval      = time.Second
	dripChunk         = "<i>.</i>" // 8 bytes per tick
	hugeBodySize      = 512 << 20  // streamed, never allocated
	bombMemberSize    = 16 << 20   // spaces per gzip member
	bombMembers       = 256        // 256 × 16 MiB = 4 GiB decompressed
	deepNesting       = 100_000
	giantAttrSize     = 8 << 20
	giantAttrNameSize = 64 << 10
	manyLinks         = 100_000
	longURLSize       = 10 << 10
	maxLongURL        = 64 << 10
	hugeRobotsSize    = 32 << 20
	binarySize        = 64 << 10
	wrongLengthClaim  = 10_000 // Content-Length claimed by /wrong-length/short
	wrongLengthSent   = 100
	burstLimit        = 4 // requests per wall second to /burst/ before 429
	retryAfterSeconds = 120
	calendarMaxYear   = 999_999
)

// AdversarialPaths lists every trap, each linked from the trap home page
// http://trap.synth.test/, or nil when Adversarial is off.
func (w *Web) AdversarialPaths() []Trap {
	if !w.opts.Adversarial {
		return nil
	}
	t := func(name, path, expect string) Trap {
		u := path
		if strings.HasPrefix(path, "/") {
			u = "http://" + trapHost + path
		}
		return Trap{Name: name, URL: u, Expect: expect}
	}
	return []Trap{
		t("redirect-loop", "/loop/a", "A→B→A: stops at its redirect limit, records a redirect loop, fetches neither again soon"),
		t("redirect-chain", "/r/1", "/r/1 → /r/2 → …: stops at its redirect limit"),
		t("calendar", "/calendar/2024/01/", "months and days link on forever: a depth or per-host budget ends the crawl of it"),
		t("deep-path", "/deep/a/", "each page links two deeper ones: a path-depth or URL-length limit ends it"),
		t("slow-drip", "/drip", "8 bytes a second forever: the fetch gives up at its read deadline"),
		t("huge-body", "/huge", "512 MiB body: reading stops at the body size limit (recorded as too large)"),
		t("gzip-bomb", "/bomb", "4 MiB of gzip expanding to 4 GiB: the limit applies to decompressed bytes"),
		t("malformed-unclosed", "/malformed/unclosed", "unclosed and misnested tags: parsed, links extracted"),
		t("malformed-deep", "/malformed/deep", "100,000 nested divs: parsed without exhausting the stack"),
		t("malformed-attr", "/malformed/attr", "an 8 MiB attribute value and a 64 KiB attribute name: bounded memory"),
		t("malformed-nul", "/malformed/nul", "NUL bytes in text, tags and attributes: parsed, links extracted"),
		t("charset-latin1", "/charset/latin1", "header says UTF-8, meta says Shift_JIS, bytes are Latin-1: no crash, text indexed as valid UTF-8"),
		t("charset-sjis", "/charset/sjis", "header says UTF-8, meta says ISO-8859-1, bytes are Shift_JIS: no crash, valid UTF-8 stored"),
		t("retry-429-seconds", "/limit/429/seconds", "429 with Retry-After: 120: backs off the host at least that long"),
		t("retry-429-date", "/limit/429/date", "429 with Retry-After as an HTTP-date: backs off until then"),
		t("retry-503-seconds", "/limit/503/seconds", "503 with Retry-After: 120: backs off"),
		t("retry-503-date", "/limit/503/date", "503 with Retry-After as an HTTP-date: backs off"),
		t("burst", "/burst/1", "more than 4 requests in a second get 429 with Retry-After: 1: politeness slows down"),
		t("many-links", "/links/many", "100,000 links on one page: out-links capped, frontier bounded"),
		t("long-url", "/long/"+longPath(), "a 10 KiB URL: rejected or truncated by the URL length limit"),
		t("unsafe-links", "/links/unsafe", "links to loopback, private and link-local addresses and non-HTTP schemes: none fetched"),
		t("robots-huge", "http://"+trapHugeRobotsHost+"/", "robots.txt of 32 MiB: a bounded prefix is read (RFC 9309: ≥ 500 KiB) and its Disallow: /private/ obeyed"),
		t("robots-error", "http://"+trapErrRobotsHost+"/", "robots.txt answers 500: nothing else on the host is fetched (RFC 9309 §2.3.1.4)"),
		t("wrong-length-short", "/wrong-length/short", "Content-Length 10000, 100 bytes, then close: an error, not a truncated page stored as whole"),
		t("wrong-length-long", "/wrong-length/long", "Content-Length 16 followed by 4 KiB: only 16 bytes read, connection not reused"),
		t("binary-as-html", "/binary", "binary bytes labelled text/html: rejected or stored without crashing the parser"),
	}
}

// longPath is the 10 KiB path tail of the long-url trap.
func longPath() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, longURLSize)
	for i := range b {
		b[i] = alphabet[i%len(alphabet)]
	}
	return string(b)
}

// serveTrap serves the trap hosts; false if host is none of them.
func (w *Web) serveTrap(rw http.ResponseWriter, r *http.Request, host, port string, now time.Time) bool {
	switch host {
	case trapHost:
		w.log.Debug("trap", "host", host, "url", r.URL.Path)
		w.serveTrapMain(rw, r, port, now)
	case trapHugeRobotsHost, trapErrRobotsHost:
		w.log.Debug("trap", "host", host, "url", r.URL.Path)
		w.serveRobotsTrap(rw, r, host)
	default:
		return false
	}
	return true
}

func (w *Web) serveTrapMain(rw http.ResponseWriter, r *http.Request, port string, now time.Time) {
	p := r.URL.Path
	switch {
	case p == "/":
		writeSmall(rw, htmlType, w.trapHome(port))
	case p == "/robots.txt":
		writeSmall(rw, "text/plain; charset=utf-8", "User-agent: *\nDisallow: /private/\n")
	case strings.HasPrefix(p, privateDir):
		w.disallowed.Add(1)
		writeSmall(rw, htmlType, smallPage("Members only", `<a href="/">home</a>`))
	case p == "/loop/a" || p == "/loop/b" || strings.HasPrefix(p, "/r/"):
		serveRedirect(rw, r)
	case strings.HasPrefix(p, "/calendar/"):
		serveCalendar(rw, r)
	case strings.HasPrefix(p, "/deep/"):
		serveDeep(rw, r)
	case p == "/drip":
		serveDrip(rw, r)
	case p == "/huge":
		serveHuge(rw, r)
	case p == "/bomb":
		w.serveBomb(rw, r)
	case strings.HasPrefix(p, "/malformed/"):
		serveMalformed(rw, r)
	case strings.HasPrefix(p, "/charset/"):
		serveCharset(rw, r)
	case strings.HasPrefix(p, "/limit/"):
		serveLimit(rw, r, now)
	case strings.HasPrefix(p, "/burst/"):
		w.serveBurst(rw, r, now)
	case strings.HasPrefix(p, "/links/"):
		serveLinks(rw, r)
	case strings.HasPrefix(p, "/long/"):
		serveLong(rw, r)
	case strings.HasPrefix(p, "/wrong-length/"):
		serveWrongLength(rw, r)
	case p == "/binary":
		w.serveBinary(rw)
	default:
		http.NotFound(rw, r)
	}
}

func (w *Web) trapHome(port string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>The Cabinet of Oddities</title></head>\n<body>\n<h1>The Cabinet of Oddities</h1>\n<ul>\n")
	for _, t := range w.AdversarialPaths() {
		href := strings.TrimPrefix(t.URL, "http://"+trapHost)
		if strings.HasPrefix(href, "http://") {
			// Another trap host: keep the port the request came in on.
			h := strings.TrimSuffix(strings.TrimPrefix(href, "http://"), "/")
			href = "http://" + h + port + "/"
		}
		b.WriteString(`<li><a href="` + html.EscapeString(href) + `">` + t.Name + "</a></li>\n")
	}
	b.WriteString("</ul>\n<p><a href=\"/private/vault.html\">The vault</a></p>\n</body></html>\n")
	return b.String()
}

// writeSmall writes a small complete body with its length.
func writeSmall(rw http.ResponseWriter, ctype, body string) {
	rw.Header().Set("Content-Type", ctype)
	rw.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = rw.Write([]byte(body)) // a failed write means the client left; nothing to do
}

func smallPage(title, body string) string {
	return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html.EscapeString(title) +
		"</title></head>\n<body>\n<h1>" + html.EscapeString(title) + "</h1>\n" + body + "\n</body></html>\n"
}

// serveRobotsTrap serves the two hosts whose robots.txt misbehaves.
func (w *Web) serveRobotsTrap(rw http.ResponseWriter, r *http.Request, host string) {
	p := r.URL.Path
	if p == "/robots.txt" {
		if host == trapErrRobotsHost {
			http.Error(rw, "internal server error", http.StatusInternalServerError)
			return
		}
		serveHugeRobots(rw, r)
		return
	}
	if host == trapErrRobotsHost || strings.HasPrefix(p, privateDir) {
		w.disallowed.Add(1)
	}
	links := `<p><a href="/page/1">one</a> <a href="/page/2">two</a> <a href="/private/secret.html">secret</a></p>`
	switch p {
	case "/", "/page/1", "/page/2", "/private/secret.html":
		writeSmall(rw, htmlType, smallPage(host+p, links))
	default:
		http.NotFound(rw, r)
	}
}
