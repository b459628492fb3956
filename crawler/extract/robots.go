package extract

import "strings"

// Robots are the page-level robots directives that matter to a crawler.
type Robots struct {
	// NoIndex: the page must not be indexed (noindex, none).
	NoIndex bool
	// NoFollow: the page's links must not be followed (nofollow, none).
	NoFollow bool
}

// Union returns the directives of r and o together.
func (r Robots) Union(o Robots) Robots {
	return Robots{NoIndex: r.NoIndex || o.NoIndex, NoFollow: r.NoFollow || o.NoFollow}
}

// directives adds the comma- or space-separated directives of a robots
// meta content to r.
func (r *Robots) directives(content string) {
	for _, d := range strings.FieldsFunc(content, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' }) {
		switch strings.ToLower(d) {
		case "noindex":
			r.NoIndex = true
		case "nofollow":
			r.NoFollow = true
		case "none":
			r.NoIndex, r.NoFollow = true, true
		}
	}
}

// knownDirectives are X-Robots-Tag directive names; any other name before
// a colon is a crawler's name, scoping what follows to that crawler.
var knownDirectives = map[string]bool{
	"all": true, "index": true, "follow": true, "noindex": true, "nofollow": true, "none": true,
	"noarchive": true, "nocache": true, "nosnippet": true, "noimageindex": true, "notranslate": true,
	"indexifembedded": true, "max-snippet": true, "max-image-preview": true, "max-video-preview": true,
	"unavailable_after": true, "noodp": true, "noydir": true,
}

// RobotsTag parses X-Robots-Tag header values. Directives scoped to a named
// crawler ("googlebot: noindex") are ignored; only unscoped ones count.
func RobotsTag(values ...string) Robots {
	var r Robots
	for _, v := range values {
		scoped := false
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			if name, rest, ok := strings.Cut(part, ":"); ok {
				if n := strings.ToLower(strings.TrimSpace(name)); !knownDirectives[n] {
					scoped = true // "crawler: directive": scope starts here
					part = rest
				}
			}
			if !scoped {
				r.directives(part)
			}
		}
	}
	return r
}
