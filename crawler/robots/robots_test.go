package robots

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type check struct {
	agent, path string
	allowed     bool
}

func runChecks(t *testing.T, r *Robots, checks []check) {
	t.Helper()
	for _, c := range checks {
		verb := "may not"
		if c.allowed {
			verb = "may"
		}
		t.Run(c.agent+" "+verb+" fetch "+c.path, func(t *testing.T) {
			if got := r.Group(c.agent).Allowed(c.path); got != c.allowed {
				t.Fatalf("Group(%q).Allowed(%q) = %v, want %v", c.agent, c.path, got, c.allowed)
			}
		})
	}
}

// TestRFC9309Example checks the example file of RFC 9309 §5.1.
func TestRFC9309Example(t *testing.T) {
	r := Parse(readTestdata(t, "rfc9309.txt"))
	runChecks(t, r, []check{
		{"foobot", "/", false},
		{"foobot", "/example/page.html", true},
		{"foobot", "/example/allowed.gif", true},
		{"foobot", "/example/other.gif", false},
		{"FooBot", "/example/page.html", true},
		{"foobot/2.1 (+https://foo.example)", "/example/page.html", true},
		{"barbot", "/example/page.html", false},
		{"bazbot", "/example/page.html", false},
		{"barbot", "/example/other.html", true},
		{"barbot", "/image.gif", true},
		{"quxbot", "/example/page.html", true},
		{"quxbot", "/image.gif", true},
		{"otherbot", "/image.gif", false},
		{"otherbot", "/image.gif?x=1", true},
		{"otherbot", "/example/page.html", false},
		{"otherbot", "/publications/a.html", true},
		{"otherbot", "/publications/a.gif", true}, // the longer Allow wins
		{"otherbot", "/", true},
	})
}

// TestRFC9309Precedence checks the examples of RFC 9309 §2.2.2.
func TestRFC9309Precedence(t *testing.T) {
	for _, tc := range []struct {
		name, body, path string
		allowed          bool
	}{
		{"the longer disallow wins", "user-agent: *\nallow: /example/page/\ndisallow: /example/page/disallowed.gif", "/example/page/disallowed.gif", false},
		{"the longer allow wins", "user-agent: *\nallow: /example/page/\ndisallow: /example/page", "/example/page/", true},
		{"a disallowed prefix applies", "user-agent: *\nallow: /example/page/\ndisallow: /example/page", "/example/pages", false},
		{"a UTF-8 pattern matches the escaped path", "user-agent: *\ndisallow: /foo/bar/ツ", "/foo/bar/%E3%83%84", false},
		{"an escaped pattern matches the escaped path", "user-agent: *\ndisallow: /foo/bar/%E3%83%84", "/foo/bar/%E3%83%84", false},
		{"an escaped pattern matches the UTF-8 path", "user-agent: *\ndisallow: /foo/bar/%E3%83%84", "/foo/bar/ツ", false},
		{"escaped unreserved characters match plain ones", "user-agent: *\ndisallow: /foo/bar/%62%61%7A", "/foo/bar/baz", false},
		{"plain characters match escaped unreserved ones", "user-agent: *\ndisallow: /foo/bar/baz", "/foo/bar/%62%61%7a", false},
		{"escapes match case-insensitively", "user-agent: *\ndisallow: /a%2fb", "/a%2Fb", false},
		{"an escaped slash is not a slash", "user-agent: *\ndisallow: /a/b", "/a%2Fb", true},
		{"the query is matched", "user-agent: *\ndisallow: /foo/bar?baz=quz", "/foo/bar?baz=quz", false},
		{"an empty disallow allows", "user-agent: *\ndisallow:", "/anything", true},
		{"robots.txt is always allowed", "user-agent: *\ndisallow: /", "/robots.txt", true},
		{"an empty path is the root", "user-agent: *\ndisallow: /$", "", false},
		{"matching is case-sensitive", "user-agent: *\ndisallow: /Fish", "/fish", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Parse([]byte(tc.body)).Group("deltaqbot").Allowed(tc.path); got != tc.allowed {
				t.Fatalf("Allowed(%q) = %v, want %v", tc.path, got, tc.allowed)
			}
		})
	}
}

// TestGoogleExamples checks the path-matching and precedence examples of
// Google's robots.txt specification.
func TestGoogleExamples(t *testing.T) {
	type ex struct {
		pattern string
		match   []string
		noMatch []string
	}
	for _, e := range []ex{
		{"/", []string{"/", "/index.html", "/a/b?c"}, nil},
		{"/*", []string{"/", "/index.html", "/a/b?c"}, nil},
		{"/$", []string{"/"}, []string{"/index.html", "/?a=b"}},
		{"/fish", []string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish*", []string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish/", []string{"/fish/", "/fish/?id=anything", "/fish/salmon.htm"},
			[]string{"/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"}},
		{"/*.php", []string{"/index.php", "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "/folder/any.php.file.html", "/filename.php/"},
			[]string{"/", "/windows.PHP"}},
		{"/*.php$", []string{"/filename.php", "/folder/filename.php"},
			[]string{"/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"}},
		{"/fish*.php", []string{"/fish.php", "/fishheads/catfish.php?parameters"}, []string{"/Fish.PHP"}},
	} {
		r := Parse([]byte("User-agent: *\nDisallow: " + e.pattern + "\n"))
		g := r.Group("deltaqbot")
		for _, p := range e.match {
			t.Run("pattern "+e.pattern+" matches "+p, func(t *testing.T) {
				if g.Allowed(p) {
					t.Fatalf("Disallow: %s did not match %q", e.pattern, p)
				}
			})
		}
		for _, p := range e.noMatch {
			t.Run("pattern "+e.pattern+" does not match "+p, func(t *testing.T) {
				if !g.Allowed(p) {
					t.Fatalf("Disallow: %s matched %q", e.pattern, p)
				}
			})
		}
	}
	for _, tc := range []struct {
		name, allow, disallow, path string
		allowed                     bool
	}{
		{"a longer allow beats a shorter disallow", "/p", "/", "/page", true},
		{"allow wins a tie", "/folder", "/folder", "/folder/page", true},
		{"a longer wildcard disallow wins", "/page", "/*.htm", "/page.htm", false},
		{"allow wins a tie with a wildcard", "/page", "/*.ph", "/page.php", true},
		{"an anchored allow beats the root disallow at the root", "/$", "/", "/", true},
		{"the root disallow applies below the root", "/$", "/", "/page.htm", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse([]byte("user-agent: *\nallow: " + tc.allow + "\ndisallow: " + tc.disallow + "\n"))
			if got := r.Group("deltaqbot").Allowed(tc.path); got != tc.allowed {
				t.Fatalf("Allowed(%q) = %v, want %v", tc.path, got, tc.allowed)
			}
		})
	}
}

func TestGroupSelection(t *testing.T) {
	body := `
user-agent: googlebot-news
disallow: /news-only

user-agent: *
disallow: /star-only

user-agent: googlebot
disallow: /google-only

User-Agent: DeltaqBot
Disallow: /a

user-agent: other
user-agent: deltaqbot
disallow: /b
crawl-delay: 3

User-agent: deltaqbot
Crawl-delay: 1.5
Disallow: /c
`
	r := Parse([]byte(body))
	runChecks(t, r, []check{
		{"googlebot-news", "/news-only", false},
		{"googlebot-news", "/google-only", true},
		{"googlebot-news", "/star-only", true},
		{"googlebot", "/google-only", false},
		{"googlebot", "/news-only", true},
		{"storebot-google", "/star-only", false},
		{"storebot-google", "/google-only", true},
		{"deltaqbot", "/a", false},
		{"deltaqbot", "/b", false},
		{"deltaqbot", "/c", false},
		{"deltaqbot", "/star-only", true},
		{"DELTAQBOT/1.0", "/b", false},
		{"other", "/b", false},
		{"other", "/a", true},
		{"", "/star-only", false},
	})
	t.Run("of several merged groups the largest crawl-delay wins", func(t *testing.T) {
		d, ok := r.Group("deltaqbot").CrawlDelay()
		if !ok || d != 3*time.Second {
			t.Fatalf("CrawlDelay = %v, %v; want 3s", d, ok)
		}
	})
}

func TestNoStarGroupAllowsAll(t *testing.T) {
	r := Parse([]byte("user-agent: foobot\ndisallow: /\n"))
	if !r.Group("barbot").Allowed("/x") {
		t.Fatal("a crawler matching no group and no * group was refused")
	}
}

func TestParseSyntax(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		checks     []check
	}{
		{"rules before any user-agent are ignored", "disallow: /\nuser-agent: *\ndisallow: /x", []check{{"a", "/y", true}, {"a", "/x", false}}},
		{"a rule line ends the user-agent list", "user-agent: a\ndisallow: /a\nuser-agent: b\ndisallow: /b", []check{{"a", "/b", true}, {"b", "/a", true}, {"b", "/b", false}}},
		{"unknown lines do not end a group", "user-agent: a\nfoo: bar\ndisallow: /a", []check{{"a", "/a", false}}},
		{"sitemap lines do not end a group", "user-agent: a\nsitemap: https://x/s.xml\nuser-agent: b\ndisallow: /a", []check{{"b", "/a", false}, {"a", "/a", false}}},
		{"keys are case-insensitive", "USER-AGENT: *\nDISALLOW: /x", []check{{"a", "/x", false}}},
		{"spaces around the colon are allowed", "user-agent : *\ndisallow  :  /x  ", []check{{"a", "/x", false}}},
		{"a missing colon is tolerated", "user-agent *\ndisallow /x", []check{{"a", "/x", false}}},
		{"common typos are tolerated", "useragent: *\ndissallow: /x", []check{{"a", "/x", false}}},
		{"comments are stripped", "user-agent: * # everyone\ndisallow: /x#y", []check{{"a", "/x", false}, {"a", "/y", true}}},
		{"garbage lines are ignored", "\x00\xff garbage\n<html>\nuser-agent: *\n:::\ndisallow: /x", []check{{"a", "/x", false}}},
		{"CR alone ends lines", "user-agent: *\rdisallow: /x\rallow: /x/y", []check{{"a", "/x", false}, {"a", "/x/y", true}}},
		{"a pattern without a slash gets one", "user-agent: *\ndisallow: private", []check{{"a", "/private", false}}},
		{"an empty file allows all", "", []check{{"a", "/", true}}},
		{"an HTML page allows all", "<html><body>Not found</body></html>", []check{{"a", "/", true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runChecks(t, Parse([]byte(tc.body)), tc.checks)
		})
	}
}

func TestBOMAndCRLF(t *testing.T) {
	r := Parse(readTestdata(t, "bom-crlf.txt"))
	runChecks(t, r, []check{
		{"crlfbot", "/private/x", false},
		{"crlfbot", "/private/public/x", true},
		{"crlfbot", "/other", true},
		{"otherbot", "/other", false},
	})
	if d, ok := r.Group("otherbot").CrawlDelay(); !ok || d != 2500*time.Millisecond {
		t.Errorf("CrawlDelay = %v, %v; want 2.5s", d, ok)
	}
	if _, ok := r.Group("crlfbot").CrawlDelay(); ok {
		t.Errorf("crlfbot got a crawl-delay it was not given")
	}
	if got, want := r.Sitemaps(), []string{"https://example.com/sitemap.xml"}; !slices.Equal(got, want) {
		t.Errorf("Sitemaps = %q, want %q", got, want)
	}
}

func TestCrawlDelay(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        time.Duration
		ok          bool
	}{
		{"an integer is seconds", "10", 10 * time.Second, true},
		{"a decimal is accepted", "0.5", 500 * time.Millisecond, true},
		{"zero is accepted", "0", 0, true},
		{"a negative value is ignored", "-1", 0, false},
		{"an absurd value is ignored", "1e9", 0, false},
		{"infinity is ignored", "Inf", 0, false},
		{"not-a-number is ignored", "NaN", 0, false},
		{"words are ignored", "ten", 0, false},
		{"a unit suffix is ignored", "10s", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := Parse([]byte("user-agent: *\ncrawl-delay: " + tc.value + "\n")).Group("a")
			got, ok := g.CrawlDelay()
			if got != tc.want || ok != tc.ok {
				t.Fatalf("CrawlDelay = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestSitemaps(t *testing.T) {
	r := Parse([]byte("Sitemap: https://a.example/1.xml\nuser-agent: *\nsitemap:https://a.example/2.xml\nSITEMAP: https://a.example/1.xml\nsitemap:\n"))
	want := []string{"https://a.example/1.xml", "https://a.example/2.xml"}
	got := r.Sitemaps()
	if !slices.Equal(got, want) {
		t.Fatalf("Sitemaps = %q, want %q", got, want)
	}
	got[0] = "changed"
	if r.Sitemaps()[0] != want[0] {
		t.Fatal("Sitemaps returned the parser's own slice")
	}
}

func TestStatusConstructors(t *testing.T) {
	if g := AllowAll().Group("a"); !g.Allowed("/x") {
		t.Error("AllowAll refused /x")
	}
	g := DisallowAll().Group("a")
	if g.Allowed("/") || g.Allowed("/x?y") {
		t.Error("DisallowAll allowed a page")
	}
	if !g.Allowed("/robots.txt") {
		t.Error("DisallowAll refused /robots.txt")
	}
	var r *Robots
	if !r.Group("a").Allowed("/x") || r.Sitemaps() != nil {
		t.Error("a nil Robots does not allow everything")
	}
	var ng *Group
	if !ng.Allowed("/x") {
		t.Error("a nil Group refused /x")
	}
	if _, ok := ng.CrawlDelay(); ok {
		t.Error("a nil Group has a crawl-delay")
	}
}

func TestParseLimit(t *testing.T) {
	// The Disallow line sits after MaxBytes and must not be read; the
	// line cut by the limit must not be read in part either.
	var b bytes.Buffer
	b.WriteString("user-agent: *\ndisallow: /early\n")
	for b.Len() < MaxBytes-20 {
		b.WriteString("allow: /filler\n")
	}
	b.WriteString("disallow: /cut-in-the-middle-of-this-line\n")
	b.WriteString("disallow: /beyond\n")
	r := Parse(b.Bytes())
	g := r.Group("a")
	if !g.Allowed("/beyond") {
		t.Error("a rule after MaxBytes was read")
	}
	if !g.Allowed("/cut-in-the-middle-of-this-line") {
		t.Error("a rule cut by MaxBytes was read")
	}
	if g.Allowed("/early") {
		t.Error("rules before MaxBytes were lost")
	}
}

func TestGroupIsSafeForConcurrentUse(t *testing.T) {
	g := Parse(readTestdata(t, "rfc9309.txt")).Group("foobot")
	done := make(chan bool, 8)
	for range 8 {
		go func() { done <- g.Allowed("/example/page.html") && !g.Allowed("/x") }()
	}
	for range 8 {
		if !<-done {
			t.Error("concurrent Allowed gave a wrong answer")
		}
	}
}
