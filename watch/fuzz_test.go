package watch

import (
	"strings"
	"testing"
	"time"
)

// FuzzExtract runs every sentinel type over arbitrary page bytes, as a
// hostile or broken server would send them: extraction returns an object
// or an error, never panics, and is a function of the page: the same
// bytes extracted twice give equal objects, so a sentinel on a page that
// did not change never fires.
func FuzzExtract(f *testing.F) {
	for _, seed := range []struct {
		body, ctype, selector, object string
	}{
		{`<html><body><p>Fees</p><table id="fees"><tr><td>a</td><td>1</td></tr></table></body></html>`, "text/html", "#fees", ""},
		{`<ul><li><a href="/a">a</a><li><img src="x.png"></ul><ol><li>one<li>two</ol>`, "text/html; charset=utf-8", "", "one two"},
		{"<p>opens on March 3 at the main hall, tickets at the door</p>", "text/html", "", "opens on March 3 at the main hall"},
		{"plain text: nothing to parse", "text/plain", "", ""},
		{"<table><tr><td rowspan=99999 colspan=99999>x</table>", "", "table", "x"},
		{"\xff\xfe<\x00p>broken <b><i></b></i>", "text/html; charset=latin1", "p > b", ""},
		{"<div><p class=a>x</p><ul><li>1<li>2</ul></div>", "text/html", `div:has(p.a) ~ ul > li:nth-child(2n + 1), :not(.a, [x="a b"])`, ""},
	} {
		f.Add([]byte(seed.body), seed.ctype, seed.selector, seed.object, "fees", "[0-9]+")
	}
	cfg := testConfig()
	f.Fuzz(func(t *testing.T, body []byte, ctype, selector, object, keyword, re string) {
		for _, typ := range Types {
			spec := Spec{URL: "http://page.test/x", Type: typ, Selector: selector, Object: object,
				Keywords: []string{keyword}, Regex: re, Every: time.Hour}
			if spec.validate(cfg, time.Unix(0, 0)) != nil {
				continue // refused at install, with its error
			}
			a, errA := Extract(cfg, spec, body, ctype)
			b, errB := Extract(cfg, spec, body, ctype)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s: the same page gave %v, then %v", typ, errA, errB)
			}
			if errA != nil {
				if strings.TrimSpace(errA.Error()) == "" {
					t.Fatalf("%s: an empty error", typ)
				}
				continue
			}
			if !a.Equal(&b, typ) {
				t.Fatalf("%s: the same page extracted twice differs:\n%+v\n%+v", typ, a, b)
			}
		}
	})
}
