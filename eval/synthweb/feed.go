package synthweb

import (
	"html"
	"time"
)

const htmlType = "text/html; charset=utf-8"

// feed renders the site's RSS 2.0 (even sites) or Atom (odd sites) feed of
// its FeedSize newest listed articles. Item text is fixed at publication,
// so the feed changes only when articles arrive or are deleted.
func (v *view) feed() *doc {
	d := v.newDoc(KindFeed, v.s.feedType()+"; charset=utf-8")
	built := v.latestArrival()
	d.touch(built)
	items, _ := v.list(func(*article) bool { return true }, 0, v.w.opts.FeedSize)
	home := d.abs("/")
	name := html.EscapeString(v.s.name)
	d.s("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	if v.s.atom {
		d.ref("/")
		d.ref(v.s.feedPath())
		d.s("<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<title>", name, "</title>\n",
			"<link rel=\"alternate\" href=\"", home, "\"/>\n",
			"<link rel=\"self\" href=\"", d.abs(v.s.feedPath()), "\"/>\n",
			"<id>", home, "</id>\n<updated>", fmtDate(v.w.wall(built), time.RFC3339), "</updated>\n")
		for _, a := range items {
			u := d.abs(v.articlePath(a))
			d.ref(u)
			pub := fmtDate(v.w.wall(a.created), time.RFC3339)
			d.s("<entry>\n<title>", titleString(a.title), "</title>\n<link rel=\"alternate\" href=\"", u,
				"\"/>\n<id>", u, "</id>\n<published>", pub, "</published>\n<updated>", pub,
				"</updated>\n<summary>", v.summary(a), "</summary>\n</entry>\n")
		}
		d.s("</feed>\n")
		return d
	}
	d.ref("/")
	d.s("<rss version=\"2.0\">\n<channel>\n<title>", name, "</title>\n<link>", home,
		"</link>\n<description>", v.summaryOfSite(), "</description>\n<lastBuildDate>",
		fmtDate(v.w.wall(built), time.RFC1123Z), "</lastBuildDate>\n")
	for _, a := range items {
		u := d.abs(v.articlePath(a))
		d.ref(u)
		d.s("<item>\n<title>", titleString(a.title), "</title>\n<link>", u,
			"</link>\n<guid isPermaLink=\"true\">", u, "</guid>\n<pubDate>",
			fmtDate(v.w.wall(a.created), time.RFC1123Z), "</pubDate>\n<category>",
			sectionNames[a.section], "</category>\n<description>", v.summary(a), "</description>\n</item>\n")
	}
	d.s("</channel>\n</rss>\n")
	return d
}

// summary is an article's one-line teaser, fixed at publication.
func (v *view) summary(a *article) string {
	s := "A report on " + words[a.tags[0]]
	for i, t := range a.tags[1:] {
		if i == len(a.tags)-2 {
			s += " and "
		} else {
			s += ", "
		}
		s += words[t]
	}
	return s + "."
}

func (v *view) summaryOfSite() string {
	return "News and notes on " + words[v.s.topics[0]] + ", " + words[v.s.topics[1]] + " and more."
}

// sitemap renders a sitemaps.org urlset: the home page, section and tag
// hubs, the about page and every listed article with its lastmod, newest
// first, up to the protocol's 50,000 URLs. Chained articles are left out:
// they are reachable only through their chain.
func (v *view) sitemap() *doc {
	d := v.newDoc(KindSitemap, "application/xml; charset=utf-8")
	hubs := v.latestArrival()
	d.touch(hubs)
	d.s("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
		"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	n := 0
	entry := func(path string, lastmod float64) {
		n++
		d.ref(path)
		d.s("<url><loc>", d.abs(path), "</loc><lastmod>", fmtDate(v.w.wall(lastmod), w3cDate), "</lastmod></url>\n")
	}
	entry("/", hubs)
	for i := range v.w.opts.Sections {
		entry(sectionPath(i), hubs)
	}
	for _, t := range v.s.topics {
		entry(tagPath(t), hubs)
	}
	entry("/about.html", v.w.epoch)
	v.eachDesc(func(id articleID) bool {
		a := v.article(id)
		if !v.listed(a) {
			return true
		}
		lm := v.facts(a).lm
		d.touch(lm)
		entry(v.articlePath(a), lm)
		return n < sitemapLimit
	})
	d.s("</urlset>\n")
	return d
}
