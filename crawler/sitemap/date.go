package sitemap

import (
	"strings"
	"time"
)

// dateLayouts are tried in order. First the W3C Datetime profile of ISO
// 8601 the sitemaps protocol and Atom use, with the variants sites write
// (no zone, a space for "T", a zone without colon); then RFC 822/1123 and
// RFC 850 dates of RSS, with and without weekday, seconds, two-digit years.
var dateLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
	"2006-01",
	"2006",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02T15:04:05.999999999-0700",
	"2006-01-02T15:04:05-0700",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 2006 15:04 MST",
	"Mon, 2 Jan 06 15:04:05 -0700",
	"Mon, 2 Jan 06 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05 MST",
	"Monday, 02-Jan-06 15:04:05 MST",
	"Mon Jan 2 15:04:05 MST 2006",
}

// rfc822Zones are the zone names RFC 822 §5.1 defines. time.Parse would
// give an unknown abbreviation a zero offset.
var rfc822Zones = map[string]string{
	"UT": "+0000", "GMT": "+0000", "UTC": "+0000", "Z": "+0000",
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
}

// parseDate reads a date in any of dateLayouts and returns it in UTC. Years
// before 1970 or after 2200 are taken as errors.
func parseDate(s string) (time.Time, bool) {
	f := strings.Fields(s)
	if n := len(f); n > 1 {
		if off, ok := rfc822Zones[strings.ToUpper(f[n-1])]; ok {
			f[n-1] = off
		}
	}
	s = strings.Join(f, " ")
	for _, layout := range dateLayouts {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		if y := t.Year(); y < 1970 || y > 2200 {
			return time.Time{}, false
		}
		return t.UTC(), true
	}
	return time.Time{}, false
}
