package extract

import (
	"strings"
	"time"
)

// maxRefreshDelay bounds the delay read from a refresh; no page waits a day
// to redirect, and the bound keeps the Duration from overflowing.
const maxRefreshDelay = 24 * time.Hour

// refresh reads a <meta http-equiv=refresh content> value as the HTML
// standard's "shared declarative refresh steps" do: "5", "0; url=/next",
// "0;URL='/next'", "3, /next". A value without a leading number is ignored.
func (p *parser) refresh(content string) {
	s := strings.TrimLeft(content, " \t\n\f\r")
	i := 0
	secs := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if secs < int(maxRefreshDelay/time.Second) {
			secs = secs*10 + int(s[i]-'0')
		}
		i++
	}
	if i == 0 && (len(s) == 0 || s[0] != '.') {
		return
	}
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++ // the fraction is ignored
	}
	delay := min(time.Duration(secs)*time.Second, maxRefreshDelay)
	s = strings.TrimLeft(s[i:], " \t\n\f\r")
	if s != "" && (s[0] == ';' || s[0] == ',') {
		s = strings.TrimLeft(s[1:], " \t\n\f\r")
	}
	if len(s) >= 3 && strings.EqualFold(s[:3], "url") {
		if rest := strings.TrimLeft(s[3:], " \t\n\f\r"); strings.HasPrefix(rest, "=") {
			s = strings.TrimLeft(rest[1:], " \t\n\f\r")
		}
	}
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		s = s[1:]
		if j := strings.IndexByte(s, q); j >= 0 {
			s = s[:j]
		}
	}
	s = strings.TrimSpace(s)
	r := &Refresh{Delay: delay}
	if s != "" {
		u, ok := p.addLink(s, KindRefresh, false)
		if !ok {
			return
		}
		if u != p.self {
			r.URL = u
		}
	}
	p.doc.Refresh = r
}
