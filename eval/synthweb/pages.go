package synthweb

import (
	"bytes"
	"html"
	"strconv"
	"strings"
)

// Paths of a site:
//
//	/                                  home: newest articles, sections, tags
//	/<section>/[?page=N]               section hub, newest first, paginated
//	/tag/<word>/[?page=N]              articles tagged <word>
//	/<section>/<b>-<pos>-<slug>.html   article (b = arrival bucket, 0 = initial)
//	/feed.xml | /atom.xml              RSS (even sites) or Atom (odd sites)
//	/sitemap.xml  /robots.txt  /about.html
//	/private/...                       disallowed by robots.txt, linked anyway
const (
	homeItems     = 10
	relatedItems  = 3
	relatedTries  = 12
	sitemapLimit  = 50000 // sitemaps.org limit per file
	privateDir    = "/private/"
	accountPath   = privateDir + "account.html"
	editPathStart = privateDir + "edit/"
)

// route renders the page at path?rawQuery, or returns nil for a 404.
func (v *view) route(path, rawQuery string) *doc {
	page, ok := pageNumber(rawQuery)
	if !ok || !strings.HasPrefix(path, "/") {
		return nil
	}
	switch path {
	case "/":
		return onlyFirst(page, v.home())
	case "/robots.txt":
		return onlyFirst(page, v.robots())
	case "/sitemap.xml":
		return onlyFirst(page, v.sitemap())
	case v.s.feedPath():
		return onlyFirst(page, v.feed())
	case "/about.html":
		return onlyFirst(page, v.about())
	}
	if strings.HasPrefix(path, privateDir) {
		return onlyFirst(page, v.private())
	}
	parts := strings.Split(path[1:], "/")
	switch {
	case len(parts) == 3 && parts[0] == "tag" && parts[2] == "":
		return v.tagPage(parts[1], page)
	case len(parts) == 2 && parts[1] == "":
		if sec := v.sectionIndex(parts[0]); sec >= 0 {
			return v.sectionPage(sec, page)
		}
	case len(parts) == 2 && page == 1 && rawQuery == "":
		return v.articlePage(parts[0], parts[1])
	}
	return nil
}

// onlyFirst rejects ?page=N on pages that are not paginated.
func onlyFirst(page int, d *doc) *doc {
	if page != 1 {
		return nil
	}
	return d
}

// pageNumber parses the only query a site accepts: none, or page=N with N ≥
// 2 in canonical form. Anything else is a 404, so every URL has one page.
func pageNumber(rawQuery string) (int, bool) {
	if rawQuery == "" {
		return 1, true
	}
	s, ok := strings.CutPrefix(rawQuery, "page=")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 2 || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

func (v *view) sectionIndex(name string) int {
	for i := range v.w.opts.Sections {
		if sectionNames[i] == name {
			return i
		}
	}
	return -1
}

func sectionPath(sec int) string { return "/" + sectionNames[sec] + "/" }

func tagPath(word int) string { return "/tag/" + words[word] + "/" }

func pagedPath(base string, page int) string {
	if page <= 1 {
		return base
	}
	return base + "?page=" + strconv.Itoa(page)
}

func articleKey(id articleID) string {
	return strconv.FormatInt(id.bucket, 10) + "-" + strconv.Itoa(id.pos)
}

func (v *view) articlePath(a *article) string {
	var b strings.Builder
	b.WriteString(sectionPath(a.section))
	b.WriteString(articleKey(a.id))
	for _, id := range a.title {
		b.WriteByte('-')
		b.WriteString(words[id])
	}
	b.WriteString(".html")
	return b.String()
}

func editPath(a *article) string { return editPathStart + articleKey(a.id) + ".html" }

// parseArticleFile splits "<b>-<pos>-<slug>.html", requiring canonical numbers.
func parseArticleFile(file string) (articleID, bool) {
	rest, ok := strings.CutSuffix(file, ".html")
	if !ok {
		return articleID{}, false
	}
	f := strings.SplitN(rest, "-", 3)
	if len(f) < 3 {
		return articleID{}, false
	}
	b, err1 := strconv.ParseInt(f[0], 10, 64)
	pos, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || strconv.FormatInt(b, 10) != f[0] || strconv.Itoa(pos) != f[1] {
		return articleID{}, false
	}
	return articleID{b, pos}, true
}

// list returns up to take listed articles passing keep, after skipping skip
// of them, newest first, and whether more follow.
func (v *view) list(keep func(*article) bool, skip, take int) (items []*article, more bool) {
	v.eachDesc(func(id articleID) bool {
		a := v.article(id)
		if !v.listed(a) || !keep(a) {
			return true
		}
		if skip > 0 {
			skip--
			return true
		}
		if len(items) == take {
			more = true
			return false
		}
		items = append(items, a)
		return true
	})
	return items, more
}

func (v *view) header(d *doc, title string) {
	d.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
		html.EscapeString(title), " - ", html.EscapeString(v.s.name), "</title>\n")
	d.ref(v.s.feedPath())
	d.s(`<link rel="alternate" type="`, v.s.feedType(), `" title="`, html.EscapeString(v.s.name),
		`" href="`, v.s.feedPath(), "\">\n</head>\n<body>\n<header>\n<p class=\"masthead\">")
	d.link("/", v.s.name)
	d.s("</p>\n<nav>")
	for i := range v.w.opts.Sections {
		if i > 0 {
			d.s(" | ")
		}
		d.link(sectionPath(i), capitalize(sectionNames[i]))
	}
	d.s("</nav>\n</header>\n<main>\n")
}

func (v *view) footer(d *doc) {
	d.s("</main>\n<footer>\n<p>")
	d.link("/about.html", "About us")
	d.s(" | ")
	d.link(accountPath, "Your account")
	d.s(" | ")
	d.link(v.s.feedPath(), "Subscribe")
	d.s("</p>\n")
	if len(v.s.peers) > 0 || (v.w.opts.Adversarial && v.s.index == 0) {
		d.s("<p>Elsewhere: ")
		for i, p := range v.s.peers {
			if i > 0 {
				d.s(", ")
			}
			peer := v.w.sites[p]
			d.link("http://"+peer.host+v.port+"/", peer.name)
		}
		if v.w.opts.Adversarial && v.s.index == 0 {
			if len(v.s.peers) > 0 {
				d.s(", ")
			}
			d.link("http://"+trapHost+v.port+"/", "The Cabinet of Oddities")
		}
		d.s("</p>\n")
	}
	d.s("</footer>\n</body>\n</html>\n")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (v *view) itemList(d *doc, items []*article) {
	d.s("<ul class=\"articles\">\n")
	for _, a := range items {
		d.s("<li>")
		d.link(v.articlePath(a), titleString(a.title))
		t := v.w.wall(a.created)
		d.s(` <time datetime="`, fmtDate(t, w3cDate), `">`, fmtDate(t, displayDate), "</time></li>\n")
	}
	d.s("</ul>\n")
}

func (v *view) home() *doc {
	d := v.newDoc(KindHome, htmlType)
	d.touch(v.latestArrival())
	v.header(d, "Home")
	d.s("<h1>", html.EscapeString(v.s.name), "</h1>\n<section>\n<h2>Latest</h2>\n")
	items, _ := v.list(func(*article) bool { return true }, 0, homeItems)
	v.itemList(d, items)
	d.s("</section>\n<section>\n<h2>Sections</h2>\n<ul>\n")
	for i := range v.w.opts.Sections {
		d.s("<li>")
		d.link(sectionPath(i), capitalize(sectionNames[i]))
		d.s("</li>\n")
	}
	d.s("</ul>\n</section>\n<section>\n<h2>Topics</h2>\n<p>")
	tagLinks(d, v.s.topics, " ")
	d.s("</p>\n</section>\n")
	v.footer(d)
	return d
}

// tagLinks writes a link to each topic's tag page, separated by sep.
func tagLinks(d *doc, topics []int, sep string) {
	for i, t := range topics {
		if i > 0 {
			d.s(sep)
		}
		d.link(tagPath(t), words[t])
	}
}

// hubPage renders one page of a paginated listing; nil if the page is past
// the end (page 1 always exists).
func (v *view) hubPage(kind PageKind, base, heading string, page int, keep func(*article) bool) *doc {
	size := v.w.opts.PageSize
	items, more := v.list(keep, (page-1)*size, size)
	if page > 1 && len(items) == 0 {
		return nil
	}
	d := v.newDoc(kind, htmlType)
	d.older = more
	d.touch(v.latestArrival())
	title := heading
	if page > 1 {
		title += " - page " + strconv.Itoa(page)
	}
	v.header(d, title)
	d.s("<h1>", html.EscapeString(title), "</h1>\n")
	v.itemList(d, items)
	d.s("<p class=\"pager\">")
	if page > 1 {
		d.link(pagedPath(base, page-1), "Newer")
	}
	if more {
		if page > 1 {
			d.s(" | ")
		}
		d.link(pagedPath(base, page+1), "Older")
	}
	d.s("</p>\n")
	v.footer(d)
	return d
}

func (v *view) sectionPage(sec, page int) *doc {
	return v.hubPage(KindSection, sectionPath(sec), capitalize(sectionNames[sec]), page,
		func(a *article) bool { return a.section == sec })
}

func (v *view) tagPage(word string, page int) *doc {
	for _, t := range v.s.topics {
		if words[t] == word {
			return v.hubPage(KindTag, tagPath(t), "Tagged "+word, page,
				func(a *article) bool { return a.hasTag(t) })
		}
	}
	return nil
}

func (v *view) about() *doc {
	d := v.newDoc(KindAbout, htmlType)
	d.touch(v.w.epoch)
	v.header(d, "About us")
	d.s("<h1>About ", html.EscapeString(v.s.name), "</h1>\n<p>")
	var b bytes.Buffer
	v.w.vocab.paragraph(&b, newRand(uint64(v.w.opts.Seed), tagSite, uint64(v.s.index), 1), v.s.topics)
	d.s(html.EscapeString(b.String()), "</p>\n<p>We write about ")
	tagLinks(d, v.s.topics[:4], ", ")
	d.s(".</p>\n")
	v.footer(d)
	return d
}

func (v *view) private() *doc {
	d := v.newDoc(KindPrivate, htmlType)
	d.touch(v.w.epoch)
	v.header(d, "Members only")
	d.s("<h1>Members only</h1>\n<p>Please sign in to continue. Robots are not welcome here.</p>\n")
	v.footer(d)
	return d
}

func (v *view) robots() *doc {
	d := v.newDoc(KindRobots, "text/plain; charset=utf-8")
	d.touch(v.w.epoch)
	d.s("# robots.txt for ", v.s.host, "\nUser-agent: *\nDisallow: ", privateDir, "\nAllow: /\n")
	if v.s.index == 0 && v.w.opts.CrawlDelay > 0 {
		secs := int64((v.w.opts.CrawlDelay + 999_999_999) / 1_000_000_000)
		d.s("Crawl-delay: ", strconv.FormatInt(secs, 10), "\n")
	}
	d.ref("/sitemap.xml")
	d.s("\nSitemap: ", d.abs("/sitemap.xml"), "\n")
	return d
}
