package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/repo"
)

//go:embed templates/*.html
var templateFS embed.FS

var pageTemplate = template.Must(template.New("search.html").Funcs(template.FuncMap{
	"snippet": markedSnippet,
}).ParseFS(templateFS, "templates/search.html"))

var explainTemplate = template.Must(template.New("explain.html").Funcs(template.FuncMap{
	"stamp":    stamp,
	"stampPtr": stampPtr,
	"deref":    func(f *float64) float64 { return *f },
}).ParseFS(templateFS, "templates/explain.html"))

type pageLink struct {
	N       int
	Href    string
	Current bool
}

type pageData struct {
	Explain    bool // link each result to its explain view
	Query      string
	Error      string
	Response   *Response
	First      int // rank of the first result on this page
	Prev, Next string
	Pages      []pageLink
	// Last and its link, when the page asked for is past the last page of
	// results (an old link, an edited URL): the page says so and links
	// back, where it showed "N results" over nothing.
	Last     int
	LastHref string
}

// htmlHandler serves the search page; explain links each result to its
// explain view, on the listener that serves it.
func (s *Server) htmlHandler(explain bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { s.handleHTML(w, r, explain) }
}

func (s *Server) handleHTML(w http.ResponseWriter, r *http.Request, explain bool) {
	// The query string is parsed once, here; the search reads the same
	// values.
	q, ie := queryValues(r)
	data := pageData{Query: queryText(q.Get("q")), Explain: explain}
	code := http.StatusOK
	if ie != nil {
		data.Error, code = ie.Error(), http.StatusBadRequest
	} else if strings.TrimSpace(data.Query) != "" {
		user, carried := pageUser(w, r, q)
		req, ie := s.parseSearch(r, q)
		req.User = user
		var res Response
		var err error
		if ie == nil {
			res, err = s.search(r, req)
		}
		switch {
		case ie != nil:
			data.Error, code = ie.Error(), http.StatusBadRequest
		case err != nil:
			if ie, ok := asInputError(err); ok {
				data.Error, code = ie.Error(), http.StatusBadRequest
			} else if d := s.damaged(err); d != nil {
				s.logger.Error("search failed: the index is damaged", "err", err)
				data.Error, code = "The search index is damaged and cannot answer; the operator must rebuild it (deltaq index rebuild).", http.StatusServiceUnavailable
			} else {
				s.logger.Error("search failed", "err", err)
				data.Error, code = "The search failed; please try again.", http.StatusInternalServerError
			}
		default:
			data.Response = &res
			data.First = (req.Page-1)*req.Size + 1
			s.paginate(&data, req, res, carried)
		}
	}
	s.render(w, pageTemplate, code, data)
}

// render executes t into a buffer first, so a failure answers 500 rather
// than half a page.
func (s *Server) render(w http.ResponseWriter, t *template.Template, code int, data any) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		s.logger.Error("render failed", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

type explainData struct {
	Error  string
	Report *PageReport
}

// handleExplain is the HTML view of the page report.
func (s *Server) handleExplain(w http.ResponseWriter, r *http.Request) {
	u, ie := readPageURL(r)
	if ie != nil && ie.Code == CodeMissingParameter {
		s.render(w, explainTemplate, http.StatusBadRequest, explainData{Error: "Give the page to explain: /explain?url=..."})
		return
	}
	if ie != nil {
		s.render(w, explainTemplate, http.StatusBadRequest, explainData{Error: ie.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.SearchTimeout)
	defer cancel()
	rep, err := BuildPageReport(ctx, s.deps.Pages, s.deps.Explain, u)
	switch {
	case errors.Is(err, repo.ErrNotFound):
		s.render(w, explainTemplate, http.StatusNotFound, explainData{Error: "The repository does not know " + u + "."})
	case err != nil:
		s.logger.Error("explain failed", "url", u, "err", err)
		s.render(w, explainTemplate, http.StatusInternalServerError, explainData{Error: "The report failed; please try again."})
	default:
		s.render(w, explainTemplate, http.StatusOK, explainData{Report: rep})
	}
}

// pageUser is the user id that seeds the promotion order of a search
// page, and the id its links to other pages carry ("" for none). The
// cookie's, if the request has one; else a new visitor's, whose first page
// must use the id the cookie will carry to the next. A browser that keeps
// no cookie would get a new id, and so another order, on every page:
// results would repeat from one page to the next and others never show.
// So a page without the cookie carries its id in its page links (u), and
// a request without the cookie that gives one uses it, setting no cookie
// (a link shared does not give its id to the one who opens it).
func pageUser(w http.ResponseWriter, r *http.Request, q url.Values) (user, carried string) {
	if id, ok := UserFromRequest(r); ok {
		return id, ""
	}
	if id := q.Get("u"); len(q["u"]) == 1 && validUserID(id) {
		return id, id
	}
	id := UserID(w, r)
	return id, id
}

// paginate fills the links to neighbouring result pages, no further than
// the results go: Pageable, when the ranking orders fewer than Total. Each
// carries user as u, when set (pageUser).
func (s *Server) paginate(d *pageData, req Request, res Response, user string) {
	total := res.Total
	if res.Truncated() {
		total = uint64(res.Pageable)
	}
	last := int((total + uint64(req.Size) - 1) / uint64(req.Size))
	last = min(last, s.cfg.Candidates)
	href := func(p int) string {
		v := url.Values{"q": {req.Query}, "page": {strconv.Itoa(p)}}
		if req.Size != s.cfg.DefaultSize {
			v.Set("size", strconv.Itoa(req.Size))
		}
		if user != "" {
			v.Set("u", user)
		}
		return "/?" + v.Encode()
	}
	if last >= 1 && req.Page > last {
		d.Last, d.LastHref = last, href(last)
		return
	}
	if last <= 1 {
		return
	}
	if req.Page > 1 {
		d.Prev = href(req.Page - 1)
	}
	if req.Page < last {
		d.Next = href(req.Page + 1)
	}
	for p := max(1, req.Page-4); p <= min(last, req.Page+5); p++ {
		d.Pages = append(d.Pages, pageLink{N: p, Href: href(p), Current: p == req.Page})
	}
}

// markedSnippet renders a result's snippet from its plain text and
// highlights (which Server.search fills for every result): the text
// escaped, each highlight in a <mark> element. Built so, it holds no markup
// but the marks whatever a page held, and the HTML snippet is not parsed
// again. Highlights out of order or out of the text (a backend's fault)
// fall back to safeSnippet over the HTML.
func markedSnippet(r Result) template.HTML {
	text := r.SnippetText
	if index.CheckSpans(r.Highlights, len(text)) != nil {
		return safeSnippet(r.Snippet)
	}
	var b bytes.Buffer
	b.Grow(len(text) + len(r.Highlights)*len("<mark></mark>") + len(text)/8)
	pos := 0
	for _, sp := range r.Highlights {
		template.HTMLEscape(&b, []byte(text[pos:sp.Start]))
		b.WriteString("<mark>")
		template.HTMLEscape(&b, []byte(text[sp.Start:sp.End]))
		b.WriteString("</mark>")
		pos = sp.End
	}
	template.HTMLEscape(&b, []byte(text[pos:]))
	return template.HTML(b.String())
}

// safeSnippet renders a snippet keeping only <mark> elements: whatever the
// backend sent, text is re-escaped and every other tag dropped, so a page's
// content can never inject markup into the results.
func safeSnippet(s string) template.HTML {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return template.HTML(b.String())
		case html.TextToken:
			b.WriteString(html.EscapeString(string(z.Text())))
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "mark" {
				b.WriteString("<mark>")
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "mark" {
				b.WriteString("</mark>")
			}
		}
	}
}

func (s *Server) handleOpenSearch(w http.ResponseWriter, r *http.Request) {
	base := "http://" + r.Host
	if r.TLS != nil {
		base = "https://" + r.Host
	}
	w.Header().Set("Content-Type", "application/opensearchdescription+xml; charset=utf-8")
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <ShortName>deltaq</ShortName>
  <Description>Search the pages deltaq keeps fresh</Description>
  <InputEncoding>UTF-8</InputEncoding>
  <Url type="text/html" method="get" template="%[1]s/?q={searchTerms}&amp;page={startPage?}"/>
  <Url type="application/json" method="get" template="%[1]s/api/v1/search?q={searchTerms}&amp;page={startPage?}&amp;size={count?}"/>
</OpenSearchDescription>
`, template.HTMLEscapeString(base))
}
