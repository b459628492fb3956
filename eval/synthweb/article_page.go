package synthweb

import (
	"bytes"
	"html"
	"strings"
)

// articleFacts is everything an article page shows at the view's time, and
// the newest instant any of it became true (its Last-Modified).
type articleFacts struct {
	st      articleState
	related []*article // alive now
	child   *article   // chained next part, alive now
	parent  *article   // previous part when a is chained
	lm      float64
}

func (v *view) facts(a *article) articleFacts {
	f := articleFacts{st: v.state(a, v.m)}
	f.lm = max(a.created, f.st.last.at)
	// A related link whose target was deleted since is dropped: the page
	// changed then.
	for _, c := range v.related(a, f.st.last) {
		if c.alive(v.m) {
			f.related = append(f.related, c)
		} else {
			f.lm = max(f.lm, c.deleted)
		}
	}
	// The next part of a chain is linked from the moment it appears.
	if nid, ok := v.next(a.id, v.m); ok {
		if c := v.article(nid); c != nil && c.chained {
			f.lm = max(f.lm, c.created)
			if c.alive(v.m) {
				f.child = c
			} else {
				f.lm = max(f.lm, c.deleted)
			}
		}
	}
	if a.chained {
		f.parent = v.article(a.parent)
	}
	return f
}

// related picks the related box shown after event e: listed articles alive
// at e.at, chosen from e's stream.
func (v *view) related(a *article, e event) []*article {
	r := newRand(e.seed, tagExtras, 1)
	top := v.bucketOf(e.at)
	out := make([]*article, 0, relatedItems)
	for try := 0; try < relatedTries && len(out) < relatedItems; try++ {
		var id articleID
		if top == 0 || r.IntN(2) == 0 {
			id = articleID{0, r.IntN(v.w.opts.PagesPerSite)}
		} else {
			b := 1 + r.Int64N(top)
			t := v.bucket(b)
			if len(t) == 0 {
				continue
			}
			id = articleID{b, r.IntN(len(t))}
		}
		c := v.article(id)
		if c == nil || c.id == a.id || c.chained || !c.alive(e.at) || containsArticle(out, c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

func containsArticle(s []*article, a *article) bool {
	for _, x := range s {
		if x == a {
			return true
		}
	}
	return false
}

// articlePage renders /<section>/<file>, or nil if it does not exist now.
func (v *view) articlePage(section, file string) *doc {
	id, ok := parseArticleFile(file)
	if !ok {
		return nil
	}
	a := v.article(id)
	if a == nil || !a.alive(v.m) || sectionNames[a.section] != section {
		return nil
	}
	if "/"+section+"/"+file != v.articlePath(a) {
		return nil // wrong slug
	}
	f := v.facts(a)
	d := v.newDoc(KindArticle, htmlType)
	d.touch(f.lm)
	title := titleString(a.title)
	v.header(d, title)
	d.s("<article>\n<h1>", html.EscapeString(title), "</h1>\n<p class=\"byline\">Published ")
	pub := v.w.wall(a.created)
	d.s(`<time datetime="`, fmtDate(pub, w3cDate), `">`, fmtDate(pub, displayDate), "</time> in ")
	d.link(sectionPath(a.section), capitalize(sectionNames[a.section]))
	d.s("</p>\n")
	// Minor part: the date line, the ad and the related box follow the
	// newest change of any kind.
	if f.st.changed {
		up := v.w.wall(f.st.last.at)
		d.s(`<p class="updated">Updated <time datetime="`, fmtDate(up, w3cDate), `">`,
			fmtDate(up, displayDate), "</time></p>\n")
	}
	var b bytes.Buffer
	for i, seed := range f.st.paragraphs {
		b.Reset()
		v.w.vocab.paragraph(&b, newRand(seed, tagParagraph, uint64(i)), f.st.topics)
		d.s("<p>", b.String(), "</p>\n")
		if i == 1 {
			v.ad(d, f.st.last)
		}
	}
	d.s("<p class=\"tags\">Tags: ")
	tagLinks(d, a.tags, ", ")
	d.s("</p>\n")
	if f.parent != nil {
		d.s("<p class=\"prev\">Previous part: ")
		d.link(v.articlePath(f.parent), titleString(f.parent.title))
		d.s("</p>\n")
	}
	if f.child != nil {
		d.s("<p class=\"next\">Continue reading: ")
		d.link(v.articlePath(f.child), titleString(f.child.title))
		d.s("</p>\n")
	}
	if len(f.related) > 0 {
		d.s("<aside class=\"related\">\n<h2>Related</h2>\n<ul>\n")
		for _, c := range f.related {
			d.s("<li>")
			d.link(v.articlePath(c), titleString(c.title))
			d.s("</li>\n")
		}
		d.s("</ul>\n</aside>\n")
	}
	d.s("<p class=\"tools\">")
	d.link(editPath(a), "Edit this article")
	d.s("</p>\n</article>\n")
	v.footer(d)
	return d
}

// ad writes the sponsored sentence chosen by event e.
func (v *view) ad(d *doc, e event) {
	r := newRand(e.seed, tagExtras, 2)
	var b bytes.Buffer
	b.WriteString("Sponsored: ")
	writeTitle(&b, []int{v.w.vocab.content(r), v.w.vocab.content(r)})
	b.WriteString(". ")
	v.w.vocab.sentence(&b, r, nil)
	d.s("<aside class=\"ad\"><p>", strings.TrimSpace(b.String()), "</p></aside>\n")
}
