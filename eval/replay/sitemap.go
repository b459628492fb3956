package replay

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// sitemapLimit is the most URLs one sitemap may list (sitemaps.org
// protocol). A week with more pages gets a sitemap index at /sitemap.xml
// pointing to /sitemap-1.xml, /sitemap-2.xml, ... of at most this many URLs
// each. The protocol's other limit, 50 MB per file, is not checked: with
// the archive format's paths (at most a few hundred bytes) 50,000 entries
// stay far below it.
const sitemapLimit = 50_000

const (
	xmlHeader  = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	sitemapsNS = `http://www.sitemaps.org/schemas/sitemap/0.9`
)

// isSitemap reports whether path names a sitemap file: /sitemap.xml or a
// part /sitemap-K.xml of a sitemap index.
func isSitemap(path string) bool {
	_, ok := sitemapPart(path)
	return path == "/sitemap.xml" || ok
}

// sitemapPart parses /sitemap-K.xml (K ≥ 1, no leading zeros).
func sitemapPart(path string) (int, bool) {
	s, ok := strings.CutPrefix(path, "/sitemap-")
	if !ok {
		return 0, false
	}
	if s, ok = strings.CutSuffix(s, ".xml"); !ok || s == "" || s[0] == '0' || len(s) > 9 {
		return 0, false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	k, err := strconv.Atoi(s)
	return k, err == nil
}

// serveSitemap answers /sitemap.xml and /sitemap-K.xml for the week: each
// page that exists that week, with <lastmod> the date of the first week of
// its current interval (the same date as its Last-Modified header).
func (st *site) serveSitemap(w http.ResponseWriter, r *http.Request, path string, week, limit int) (int, error) {
	n := st.arch.Len(week)
	parts := (n + limit - 1) / limit
	var b bytes.Buffer
	switch k, isPart := sitemapPart(path); {
	case !isPart && n <= limit:
		st.writeURLSet(&b, r.Host, week, 0, n)
	case !isPart:
		writeSitemapIndex(&b, r.Host, parts)
	case n <= limit || k > parts:
		st.counters.notFound.Add(1)
		return writeText(w, r, http.StatusNotFound, notFound)
	default:
		st.writeURLSet(&b, r.Host, week, (k-1)*limit, min(k*limit, n))
	}
	st.counters.ok.Add(1)
	st.counters.sitemaps.Add(1)
	return writeBody(w, r, http.StatusOK, xmlType, b.Bytes())
}

// writeURLSet writes a <urlset> of the week's pages lo..hi-1 (in URL
// order).
func (st *site) writeURLSet(b *bytes.Buffer, host string, week, lo, hi int) {
	b.Grow((hi - lo) * 100)
	b.WriteString(xmlHeader)
	b.WriteString(`<urlset xmlns="` + sitemapsNS + `">` + "\n")
	i := 0
	for p := range st.arch.Pages(week) {
		if i >= hi {
			break
		}
		if i >= lo {
			b.WriteString("<url><loc>http://")
			escapeXML(b, host)
			escapeXML(b, p.URL)
			b.WriteString("</loc><lastmod>")
			b.WriteString(st.day[p.First])
			b.WriteString("</lastmod></url>\n")
		}
		i++
	}
	b.WriteString("</urlset>\n")
}

// writeSitemapIndex writes a <sitemapindex> of /sitemap-1.xml ..
// /sitemap-parts.xml.
func writeSitemapIndex(b *bytes.Buffer, host string, parts int) {
	b.WriteString(xmlHeader)
	b.WriteString(`<sitemapindex xmlns="` + sitemapsNS + `">` + "\n")
	for k := 1; k <= parts; k++ {
		b.WriteString("<sitemap><loc>http://")
		escapeXML(b, host)
		b.WriteString("/sitemap-")
		b.WriteString(strconv.Itoa(k))
		b.WriteString(".xml</loc></sitemap>\n")
	}
	b.WriteString("</sitemapindex>\n")
}

// escapeXML writes s with the five XML special characters escaped, as the
// sitemaps protocol requires for <loc> (manifest paths may hold & and ').
func escapeXML(b *bytes.Buffer, s string) {
	for {
		i := strings.IndexAny(s, `&<>'"`)
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		switch s[i] {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\'':
			b.WriteString("&apos;")
		case '"':
			b.WriteString("&quot;")
		}
		s = s[i+1:]
	}
}
