package synthweb

import (
	"fmt"
	"html"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serveRedirect: the loop /loop/a ⇄ /loop/b and the endless chain /r/N → /r/N+1.
func serveRedirect(rw http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; p {
	case "/loop/a":
		http.Redirect(rw, r, "/loop/b", http.StatusFound)
	case "/loop/b":
		http.Redirect(rw, r, "/loop/a", http.StatusTemporaryRedirect)
	default:
		s := strings.TrimPrefix(p, "/r/")
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 || n == math.MaxInt64 || strconv.FormatInt(n, 10) != s {
			http.NotFound(rw, r)
			return
		}
		http.Redirect(rw, r, "/r/"+strconv.FormatInt(n+1, 10), http.StatusFound)
	}
}

// serveCalendar: /calendar/YYYY/MM/ links the months before and after and
// every day; /calendar/YYYY/MM/DD/ links the days before and after. Years
// run to 999,999, which no crawl exhausts.
func serveCalendar(rw http.ResponseWriter, r *http.Request) {
	f := strings.Split(strings.TrimPrefix(r.URL.Path, "/calendar/"), "/")
	if len(f) < 3 || len(f) > 4 || f[len(f)-1] != "" {
		http.NotFound(rw, r)
		return
	}
	num := func(s string, lo, hi, width int) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= lo && n <= hi && fmt.Sprintf("%0*d", width, n) == s
	}
	y, okY := num(f[0], 1, calendarMaxYear, 4)
	mo, okM := num(f[1], 1, 12, 2)
	if !okY || !okM {
		http.NotFound(rw, r)
		return
	}
	first := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
	days := first.AddDate(0, 1, -1).Day()
	month := func(t time.Time) string { return fmt.Sprintf("/calendar/%04d/%02d/", t.Year(), int(t.Month())) }
	day := func(t time.Time) string {
		return fmt.Sprintf("/calendar/%04d/%02d/%02d/", t.Year(), int(t.Month()), t.Day())
	}
	var b strings.Builder
	if len(f) == 3 {
		fmt.Fprintf(&b, `<p><a href="%s">previous month</a> <a href="%s">next month</a></p><ul>`,
			month(first.AddDate(0, -1, 0)), month(first.AddDate(0, 1, 0)))
		for d := 1; d <= days; d++ {
			fmt.Fprintf(&b, `<li><a href="%s">%d</a></li>`, day(first.AddDate(0, 0, d-1)), d)
		}
		b.WriteString("</ul>")
		writeSmall(rw, htmlType, smallPage(first.Format("January 2006"), b.String()))
		return
	}
	dd, okD := num(f[2], 1, days, 2)
	if !okD {
		http.NotFound(rw, r)
		return
	}
	t := first.AddDate(0, 0, dd-1)
	fmt.Fprintf(&b, `<p><a href="%s">previous day</a> <a href="%s">next day</a> <a href="%s">month</a></p><p>No events.</p>`,
		day(t.AddDate(0, 0, -1)), day(t.AddDate(0, 0, 1)), month(first))
	writeSmall(rw, htmlType, smallPage(t.Format("2 January 2006"), b.String()))
}

// serveDeep: /deep/(a|b)/…/ links two pages one level deeper, forever.
func serveDeep(rw http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	rest := strings.TrimPrefix(p, "/deep/")
	if !strings.HasSuffix(p, "/") {
		http.NotFound(rw, r)
		return
	}
	for _, seg := range strings.Split(strings.TrimSuffix(rest, "/"), "/") {
		if seg != "a" && seg != "b" && rest != "" {
			http.NotFound(rw, r)
			return
		}
	}
	depth := strings.Count(rest, "/")
	body := fmt.Sprintf(`<p>Depth %d.</p><p><a href="%sa/">deeper a</a> <a href="%sb/">deeper b</a> <a href="/">home</a></p>`,
		depth, p, p)
	writeSmall(rw, htmlType, smallPage("Deeper", body))
}

// serveLong answers any /long/<[a-z0-9]…> path up to 64 KiB.
func serveLong(rw http.ResponseWriter, r *http.Request) {
	tail := strings.TrimPrefix(r.URL.Path, "/long/")
	if tail == "" || len(tail) > maxLongURL || strings.IndexFunc(tail, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
	}) >= 0 {
		http.NotFound(rw, r)
		return
	}
	writeSmall(rw, htmlType, smallPage("A long way", fmt.Sprintf(`<p>%d bytes of path.</p><a href="/">home</a>`, len(tail))))
}

// unsafeLinks are links no crawler should follow: loopback, private,
// link-local and metadata addresses, and schemes other than http(s).
var unsafeLinks = [...]string{
	"http://127.0.0.1:1/",
	"http://127.0.0.1/admin",
	"http://localhost/",
	"http://[::1]/",
	"http://0.0.0.0/",
	"http://10.0.0.1/",
	"http://172.16.0.1/",
	"http://192.168.0.1/",
	"http://169.254.169.254/latest/meta-data/",
	"http://[fe80::1]/",
	"http://2130706433/", // 127.0.0.1 as one decimal number
	"http://0x7f.1/",
	"file:///etc/passwd",
	"javascript:alert(1)",
	"data:text/html,<p>hi</p>",
	"mailto:nobody@synth.test",
	"ftp://ftp.synth.test/pub/",
	"gopher://synth.test/",
	"tel:+10000000000",
	"ws://trap.synth.test/socket",
}

// serveLinks: /links/many (100,000 links, streamed), /links/many/N, and
// /links/unsafe.
func serveLinks(rw http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/links/unsafe":
		var b strings.Builder
		b.WriteString("<ul>")
		for _, u := range unsafeLinks {
			fmt.Fprintf(&b, `<li><a href="%s">%s</a></li>`, html.EscapeString(u), html.EscapeString(u))
		}
		b.WriteString("</ul>")
		writeSmall(rw, htmlType, smallPage("Do not follow", b.String()))
	case p == "/links/many":
		serveManyLinks(rw, r)
	case strings.HasPrefix(p, "/links/many/"):
		s := strings.TrimPrefix(p, "/links/many/")
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n >= manyLinks || strconv.Itoa(n) != s {
			http.NotFound(rw, r)
			return
		}
		writeSmall(rw, htmlType, smallPage("Item "+s, `<a href="/links/many">all items</a>`))
	default:
		http.NotFound(rw, r)
	}
}
