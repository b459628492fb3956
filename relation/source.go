package relation

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Source is where a relation's records come from: a keyword-search URL
// template, an item URL template for fetches by ID, and the selectors that
// read a result page and an item page.
type Source struct {
	// Search is the result-page URL with {q} (the keywords, query-escaped)
	// and {page} (1-based).
	Search string `json:"search"`
	// Item is the item-page URL with {id}. IDs that are paths ("/a/b")
	// may use a template of the form "http://host{id}".
	Item string `json:"item"`
	// PageSize (p) and MaxResults (K) of the interface.
	PageSize   int `json:"page_size"`
	MaxResults int `json:"max_results"`
	// Hit selects one search hit in a result page (e.g. "li.hit").
	Hit string `json:"hit"`
	// ID reads a record's ID from a hit (e.g. "css:@data-id").
	ID string `json:"id"`
	// Total reads the hit count the interface reports ("about N
	// results"), e.g. "css:.total@data-total"; "" when it reports none.
	Total string `json:"total"`
	// Fields extracted from each hit and item page: "name=css:SEL[@attr]"
	// or "name=HITSPEC|ITEMSPEC".
	Fields []string `json:"fields"`
	// Keywords are the fields whose words are a record's keywords (§3: a
	// row is a bag of words).
	Keywords []string `json:"keywords"`
	// Quota is the most requests per QuotaPeriod (Yang et al. §1: sites
	// throttle frequent polling).
	Quota       int           `json:"quota"`
	QuotaPeriod time.Duration `json:"quota_period"`
}

// compiled is a Source with its selectors parsed.
type compiled struct {
	Source
	hit    Selector
	id     Selector
	total  *Selector
	fields []Field
}

// compile checks every setting, naming the flag, the value and the limit.
func (s Source) compile() (*compiled, error) {
	var errs []error
	c := &compiled{Source: s}
	if !strings.Contains(s.Search, "{q}") {
		errs = append(errs, fmt.Errorf("--search %q: must contain {q}", s.Search))
	} else if u, err := url.Parse(strings.NewReplacer("{q}", "q", "{page}", "1").Replace(s.Search)); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("--search %q: must be an absolute http(s) URL", s.Search))
	}
	if s.MaxResults > s.PageSize && !strings.Contains(s.Search, "{page}") {
		errs = append(errs, fmt.Errorf("--search %q: must contain {page} when max results (%d) exceed the page size (%d)", s.Search, s.MaxResults, s.PageSize))
	}
	if s.Item != "" {
		if !strings.Contains(s.Item, "{id}") {
			errs = append(errs, fmt.Errorf("--item %q: must contain {id}", s.Item))
		} else if u, err := url.Parse(strings.ReplaceAll(s.Item, "{id}", "x")); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--item %q: must be an absolute http(s) URL", s.Item))
		}
	}
	if err := (Interface{PageSize: s.PageSize, MaxResults: s.MaxResults}).Validate(); err != nil {
		errs = append(errs, fmt.Errorf("--page-size %d, --max-results %d: %w", s.PageSize, s.MaxResults, err))
	}
	if sel, err := ParseSelector("css:" + s.Hit); err != nil || s.Hit == "" {
		errs = append(errs, fmt.Errorf("--hit %q: must be a CSS selector for one search hit", s.Hit))
	} else {
		c.hit = sel
	}
	if sel, err := ParseSelector(s.ID); err != nil || sel.Header != "" {
		errs = append(errs, fmt.Errorf("--id %q: must be css:SELECTOR[@attr] within a hit", s.ID))
	} else {
		c.id = sel
	}
	if s.Total != "" {
		sel, err := ParseSelector(s.Total)
		if err != nil || sel.Header != "" {
			errs = append(errs, fmt.Errorf("--total %q: must be css:SELECTOR[@attr]", s.Total))
		} else {
			c.total = &sel
		}
	}
	names := map[string]bool{}
	for _, spec := range s.Fields {
		f, err := ParseField(spec)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if names[f.Name] {
			errs = append(errs, fmt.Errorf("--extract %s: field named twice", f.Name))
		}
		names[f.Name] = true
		c.fields = append(c.fields, f)
	}
	if len(c.fields) == 0 {
		errs = append(errs, errors.New("--extract: at least one field is required"))
	}
	if len(s.Keywords) == 0 {
		errs = append(errs, errors.New("--keywords: at least one field must give the records' keywords"))
	}
	for _, k := range s.Keywords {
		if !names[k] {
			errs = append(errs, fmt.Errorf("--keywords %s: no --extract field has that name", k))
		}
	}
	if s.Quota < 0 || s.QuotaPeriod < 0 || (s.Quota > 0) != (s.QuotaPeriod > 0) {
		errs = append(errs, fmt.Errorf("--quota %d/%v: want N/PERIOD with both positive, or none", s.Quota, s.QuotaPeriod))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// Validate reports every problem with s.
func (s Source) Validate() error {
	_, err := s.compile()
	return err
}

// searchURL fills the search template.
func (c *compiled) searchURL(keywords []string, page int) string {
	return strings.NewReplacer("{q}", url.QueryEscape(strings.Join(keywords, " ")), "{page}", fmt.Sprint(page)).Replace(c.Search)
}

// ItemURL fills the item template with id: a path ID is kept as a path,
// anything else is path-escaped. An ID that makes a URL that does not
// parse (a path ID with a bad %-escape or a control character, an ID
// pasted into the host of "http://host{id}") is an error naming it.
func (s Source) ItemURL(id string) (string, error) {
	filled := strings.ReplaceAll(s.Item, "{id}", url.PathEscape(id))
	if strings.HasPrefix(id, "/") {
		filled = strings.ReplaceAll(s.Item, "{id}", id)
	}
	if _, err := url.Parse(filled); err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // the URL is named already
		}
		return "", fmt.Errorf("ID %q makes the item URL %q, which does not parse: %w", id, filled, err)
	}
	return filled, nil
}

// CheckID refuses an ID whose item URL does not parse (see ItemURL).
func (s Source) CheckID(id string) error {
	_, err := s.ItemURL(id)
	return err
}
