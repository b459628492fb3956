package relation

import (
	"fmt"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
)

// Selector says where a value is: the text of the first element matching a
// CSS selector, or one of its attributes (css:SEL@attr; css:@attr is the
// context element's own attribute), or a response header (header:NAME).
type Selector struct {
	CSS    string // "" with Attr set: the context element itself
	Attr   string // "" means the element's text
	Header string // a response header, item pages only
	css    cascadia.Selector
}

// ParseSelector reads "css:SEL", "css:SEL@attr", "css:@attr" or
// "header:NAME".
func ParseSelector(spec string) (Selector, error) {
	switch {
	case strings.HasPrefix(spec, "header:"):
		name := strings.TrimPrefix(spec, "header:")
		if name == "" {
			return Selector{}, fmt.Errorf("relation: selector %q: header name is empty", spec)
		}
		return Selector{Header: name}, nil
	case strings.HasPrefix(spec, "css:"):
		body := strings.TrimPrefix(spec, "css:")
		s := Selector{}
		if i := strings.LastIndexByte(body, '@'); i >= 0 && !strings.ContainsAny(body[i:], "]\"' ") {
			body, s.Attr = body[:i], body[i+1:]
			if s.Attr == "" {
				return Selector{}, fmt.Errorf("relation: selector %q: attribute name after @ is empty", spec)
			}
		}
		s.CSS = strings.TrimSpace(body)
		if s.CSS == "" && s.Attr == "" {
			return Selector{}, fmt.Errorf("relation: selector %q: empty CSS selector", spec)
		}
		if s.CSS != "" {
			sel, err := cascadia.Compile(s.CSS)
			if err != nil {
				return Selector{}, fmt.Errorf("relation: selector %q: %w", spec, err)
			}
			s.css = sel
		}
		return s, nil
	}
	return Selector{}, fmt.Errorf("relation: selector %q: must start with \"css:\" or \"header:\"", spec)
}

// String is the spec the selector was parsed from.
func (s Selector) String() string {
	switch {
	case s.Header != "":
		return "header:" + s.Header
	case s.Attr != "":
		return "css:" + s.CSS + "@" + s.Attr
	}
	return "css:" + s.CSS
}

// value extracts the selector's value within sel (nil header for hits);
// found is false when nothing matches.
func (s Selector) value(sel *goquery.Selection, header func(string) string) (string, bool) {
	if s.Header != "" {
		if header == nil {
			return "", false
		}
		v := header(s.Header)
		return strings.Trim(strings.TrimPrefix(v, "W/"), `"`), v != ""
	}
	el := sel
	if s.CSS != "" {
		el = sel.FindMatcher(s.css).First()
	}
	if el.Length() == 0 {
		return "", false
	}
	if s.Attr != "" {
		v, ok := el.Attr(s.Attr)
		return strings.Join(strings.Fields(v), " "), ok
	}
	return strings.Join(strings.Fields(el.Text()), " "), true
}

// Field is one named value extracted from a hit and from an item page.
type Field struct {
	Name string
	Hit  Selector // within one search hit
	Item Selector // within the item page
}

// ParseField reads "name=SPEC" for both hit and item, or
// "name=HITSPEC|ITEMSPEC".
func ParseField(spec string) (Field, error) {
	name, rest, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Field{}, fmt.Errorf("relation: --extract %q: want name=css:SELECTOR", spec)
	}
	hitSpec, itemSpec, both := strings.Cut(rest, "|")
	if !both {
		itemSpec = hitSpec
	}
	f := Field{Name: name}
	var err error
	if f.Hit, err = ParseSelector(hitSpec); err != nil {
		return Field{}, fmt.Errorf("relation: --extract %s: %w", name, err)
	}
	if f.Item, err = ParseSelector(itemSpec); err != nil {
		return Field{}, fmt.Errorf("relation: --extract %s: %w", name, err)
	}
	return f, nil
}

// String is the spec the field was parsed from.
func (f Field) String() string {
	if f.Hit.String() == f.Item.String() {
		return f.Name + "=" + f.Hit.String()
	}
	return f.Name + "=" + f.Hit.String() + "|" + f.Item.String()
}
