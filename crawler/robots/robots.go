package robots

import (
	"bytes"
	"slices"
	"strings"
)

// MaxBytes is how much of a robots.txt body Parse reads: 500 KiB, the
// minimum parsing limit RFC 9309 §2.5 requires. A line cut by the limit is
// dropped rather than read in part, since half a rule can mean another rule.
const MaxBytes = 500 << 10

// Robots is a parsed robots.txt. The zero value and nil allow everything.
type Robots struct {
	groups   []group
	sitemaps []string
}

// group is one record of the file: the user-agents it names and its rules.
type group struct {
	agents   []string // lowercased product tokens; "*" for the global group
	rules    []rule
	delay    float64 // seconds; valid only if hasDelay
	hasDelay bool
}

// AllowAll returns a Robots that allows every path, the meaning of a 4xx
// answer for robots.txt (RFC 9309 §2.3.1.3).
func AllowAll() *Robots { return &Robots{} }

// DisallowAll returns a Robots that disallows every path but /robots.txt,
// the meaning of an unreachable robots.txt (RFC 9309 §2.3.1.4).
func DisallowAll() *Robots {
	return &Robots{groups: []group{{agents: []string{"*"}, rules: []rule{newRule("/", false)}}}}
}

// Parse reads a robots.txt body. It never fails; anything it cannot read is
// ignored.
func Parse(body []byte) *Robots {
	if len(body) > MaxBytes {
		body = body[:MaxBytes]
		if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
			body = body[:i]
		} else {
			body = nil
		}
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	r := &Robots{}
	var cur *group    // the group rules go to; nil before the first user-agent
	inAgents := false // the previous significant line was a user-agent line
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		key, value, ok := splitLine(line)
		if !ok {
			continue
		}
		switch key {
		case "user-agent", "useragent", "user agent":
			if !inAgents {
				r.groups = append(r.groups, group{})
				cur = &r.groups[len(r.groups)-1]
			}
			inAgents = true
			if a := agentToken(value); a != "" {
				cur.agents = append(cur.agents, a)
			}
		case "allow", "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw":
			inAgents = false
			if cur == nil || value == "" {
				continue // rules before any user-agent; empty rules allow
			}
			cur.rules = append(cur.rules, newRule(value, key == "allow"))
		case "crawl-delay", "crawldelay":
			inAgents = false
			if cur == nil {
				continue
			}
			if d, ok := parseDelay(value); ok && (!cur.hasDelay || d > cur.delay) {
				cur.delay, cur.hasDelay = d, true
			}
		case "sitemap", "site-map":
			// Sitemap lines stand outside groups (RFC 9309 §2.2.4).
			if value != "" && !slices.Contains(r.sitemaps, value) {
				r.sitemaps = append(r.sitemaps, value)
			}
		}
	}
	return r
}

// splitLine returns the lowercased key and the value of a "key: value" line
// without its comment. A missing colon is tolerated when a space separates
// key and value, as in "Disallow /tmp".
func splitLine(line []byte) (key, value string, ok bool) {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return "", "", false
	}
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		i = bytes.IndexAny(line, " \t")
		if i < 0 {
			return "", "", false
		}
	}
	key = strings.ToLower(string(bytes.TrimSpace(line[:i])))
	value = string(bytes.TrimSpace(line[i+1:]))
	return key, value, true
}

// agentToken returns the product token a user-agent line names: "*" for
// the global group, else the leading run of letters, '-' and '_',
// lowercased ("Googlebot/2.1" names "googlebot").
func agentToken(v string) string {
	if v == "*" || strings.HasPrefix(v, "* ") || strings.HasPrefix(v, "*\t") {
		return "*"
	}
	return productToken(v)
}

func productToken(v string) string {
	i := 0
	for i < len(v) {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			break
		}
		i++
	}
	return strings.ToLower(v[:i])
}

// Group returns the rules that apply to the crawler whose product token is
// userAgent (e.g. "deltaqbot"; a full "deltaqbot/1.0 (+url)" is cut to its
// token). Build it once per host and keep it: it merges and sorts rules.
func (r *Robots) Group(userAgent string) *Group {
	g := &Group{}
	if r == nil {
		return g
	}
	token := productToken(strings.TrimSpace(userAgent))
	if !r.collect(g, token) {
		r.collect(g, "*")
	}
	g.sort()
	return g
}

// collect merges every group naming token into g and reports whether any did.
func (r *Robots) collect(g *Group, token string) bool {
	found := false
	if token == "" {
		return false
	}
	for i := range r.groups {
		src := &r.groups[i]
		if !slices.Contains(src.agents, token) {
			continue
		}
		found = true
		g.rules = append(g.rules, src.rules...)
		if src.hasDelay && (!g.hasDelay || src.delay > g.delay) {
			g.delay, g.hasDelay = src.delay, true
		}
	}
	return found
}

// Sitemaps returns the sitemap URLs the file lists, in order, without
// duplicates, as written (they are absolute URLs by RFC 9309 §2.2.4 but
// are not checked here).
func (r *Robots) Sitemaps() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.sitemaps)
}
