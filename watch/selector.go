package watch

import (
	"fmt"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// A sentinel's CSS selector is matched here in time linear in the page,
// not by cascadia's Find. cascadia matches a descendant combinator by
// walking a node's ancestors and, for each, the ancestors of the combinator
// before it, with no memory of what it found: on a page 500 elements deep,
// "x div div span" took three seconds and "x div div div span" five
// minutes, at install and at every check, with one user's selector and
// page. Here the selector is split at its combinators, cascadia matches
// each compound selector (tag, classes, attributes, pseudo-classes) on one
// node, and one walk of the page in document order carries, per node and
// per step, whether the selector up to that step matches the node, one of
// its ancestors or one of its earlier siblings.
//
// What a compound selector may hold is bounded so that it, too, looks at
// one node, or at most one subtree: a pseudo-class that takes a selector
// (:not, :is, :where, :has, :haschild) takes compound selectors only, with
// no combinator inside; a :has() holds no other :has() (three nested took
// minutes on a page 400 deep); and :contains and :matches, which read the
// text of a whole subtree at every node, are refused (:containsOwn and
// :matchesOwn read the node's own text). The page itself is bounded by
// watch.extract: a page nested deeper than max_depth, or with more than
// max_nodes elements, gets no selector, and its check fails naming the
// limit.

// maxSelectorSteps bounds the compound selectors of one alternative: the
// walk keeps one bit per step.
const maxSelectorSteps = 64

// selector is a selector group compiled for the linear walk: its
// alternatives, each a chain of steps.
type selector struct{ alts [][]step }

// step is one compound selector and the combinator that links it to the
// step before (0 on the first step; ' ' descendant, '>' child, '+'
// adjacent sibling, '~' general sibling).
type step struct {
	comb byte
	m    cascadia.Matcher
}

// compileSelector parses s for the walk; the errors say what is refused
// (the callers name the selector).
func compileSelector(s string) (*selector, error) {
	alts, err := splitGroup(s)
	if err != nil {
		return nil, err
	}
	sel := &selector{}
	for _, alt := range alts {
		compounds, combs, err := splitCombinators(alt)
		if err != nil {
			return nil, err
		}
		if len(compounds) > maxSelectorSteps {
			return nil, fmt.Errorf("%d compound selectors in a row, at most %d", len(compounds), maxSelectorSteps)
		}
		steps := make([]step, len(compounds))
		for i, c := range compounds {
			if err := checkCompound(c, false); err != nil {
				return nil, err
			}
			m, err := cascadia.Compile(c)
			if err != nil {
				return nil, err
			}
			steps[i] = step{comb: combs[i], m: m}
		}
		sel.alts = append(sel.alts, steps)
	}
	return sel, nil
}

// scanner walks a selector's text, telling which bytes are outside
// strings, brackets and parentheses (depth 0).
type scanner struct {
	s     string
	i     int
	quote byte
	depth int // [ and ( open
}

// next advances past one byte (or an escape) and reports whether it
// stood at depth 0, outside any string.
func (sc *scanner) next() (c byte, top bool, err error) {
	c = sc.s[sc.i]
	top = sc.quote == 0 && sc.depth == 0
	switch {
	case c == '\\':
		sc.i++ // the escaped byte is never syntax
		top = false
	case sc.quote != 0:
		if c == sc.quote {
			sc.quote = 0
		}
	case c == '"' || c == '\'':
		sc.quote = c
	case c == '[' || c == '(':
		sc.depth++
	case c == ']' || c == ')':
		if sc.depth == 0 {
			return c, top, fmt.Errorf("unbalanced %q", c)
		}
		sc.depth--
	}
	sc.i++
	return c, top, nil
}

func (sc *scanner) done() bool { return sc.i >= len(sc.s) }

// splitGroup splits a selector group at its top-level commas.
func splitGroup(s string) ([]string, error) {
	var parts []string
	sc, start := &scanner{s: s}, 0
	for !sc.done() {
		at := sc.i
		c, top, err := sc.next()
		if err != nil {
			return nil, err
		}
		if top && c == ',' {
			parts = append(parts, s[start:at])
			start = sc.i
		}
	}
	if sc.quote != 0 || sc.depth != 0 {
		return nil, fmt.Errorf("unclosed string, bracket or parenthesis")
	}
	parts = append(parts, s[start:])
	for i, p := range parts {
		if parts[i] = strings.TrimSpace(p); parts[i] == "" {
			return nil, fmt.Errorf("an empty selector in the list")
		}
	}
	return parts, nil
}

// splitCombinators splits one complex selector into its compound
// selectors and the combinator before each (0 before the first).
func splitCombinators(s string) (compounds []string, combs []byte, err error) {
	sc, start := &scanner{s: s}, 0
	var comb byte // the combinator met since the last compound, 0 if none
	flush := func(end int) error {
		part := strings.TrimSpace(s[start:end])
		switch {
		case part == "" && comb != 0 && comb != ' ':
			return fmt.Errorf("combinator %q without a selector after it", comb)
		case part == "":
			return nil
		case len(compounds) == 0 && comb != 0 && comb != ' ':
			return fmt.Errorf("combinator %q without a selector before it", comb)
		}
		if len(compounds) == 0 {
			comb = 0
		}
		compounds, combs = append(compounds, part), append(combs, comb)
		comb = 0
		return nil
	}
	for !sc.done() {
		at := sc.i
		c, top, err := sc.next()
		if err != nil {
			return nil, nil, err
		}
		if !top {
			continue
		}
		switch c {
		case '>', '+', '~':
			if err := flush(at); err != nil { // "a > > b": '>' with nothing after it
				return nil, nil, err
			}
			comb, start = c, sc.i
		case ' ', '\t', '\n', '\r', '\f':
			if strings.TrimSpace(s[start:at]) != "" {
				if err := flush(at); err != nil {
					return nil, nil, err
				}
				comb, start = ' ', sc.i
			}
		}
	}
	if err := flush(len(s)); err != nil {
		return nil, nil, err
	}
	return compounds, combs, nil
}

// checkCompound refuses what would make one compound selector look at
// more than one subtree: a selector argument with a combinator, a :has()
// within a :has() (inHas: c is inside one), and the pseudo-classes that
// read a whole subtree's text.
func checkCompound(c string, inHas bool) error {
	sc := &scanner{s: c}
	for !sc.done() {
		ch, top, err := sc.next()
		if err != nil {
			return err
		}
		if !top || ch != ':' {
			continue
		}
		j := sc.i
		for j < len(c) && c[j] == ':' {
			j++
		}
		k := j
		for k < len(c) && (c[k] == '-' || c[k] == '_' || c[k] >= '0' && c[k] <= '9' || c[k]|0x20 >= 'a' && c[k]|0x20 <= 'z') {
			k++
		}
		if k >= len(c) || c[k] != '(' {
			continue // a pseudo-class without an argument
		}
		name := strings.ToLower(c[j:k])
		// The argument runs to the parenthesis that closes c[k].
		arg := &scanner{s: c, i: k}
		for {
			if _, _, err := arg.next(); err != nil {
				return err
			}
			if arg.depth == 0 || arg.done() {
				break
			}
		}
		if arg.depth != 0 {
			return fmt.Errorf("unclosed parenthesis after :%s", name)
		}
		inner := c[k+1 : arg.i-1]
		sc.i = arg.i
		switch name {
		case "contains", "matches":
			return fmt.Errorf(":%s() reads the text under every element; use :%sOwn(), or a keywords or regex sentinel with a selector", name, name)
		case "not", "is", "where", "has", "haschild":
			has := name == "has" || name == "haschild"
			if has && inHas {
				return fmt.Errorf(":%s(%s) inside another :has(): each searches a subtree for every element it looks at", name, inner)
			}
			alts, err := splitGroup(inner)
			if err != nil {
				return fmt.Errorf(":%s(%s): %v", name, inner, err)
			}
			for _, alt := range alts {
				compounds, _, err := splitCombinators(alt)
				if err != nil || len(compounds) != 1 || strings.ContainsAny(alt[:1], ">+~") {
					return fmt.Errorf(":%s(%s): takes compound selectors only, with no combinator inside (write \"a b:not(.c)\", not \":not(a .c)\")", name, inner)
				}
				if err := checkCompound(compounds[0], inHas || has); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// walkState is, for one node and one alternative, a bit per step: the
// node matches the alternative up to that step (m), one of its ancestors
// does (anc), one of its earlier element siblings does (sib).
type walkState struct{ m, anc, sib uint64 }

// match returns the elements under root that sel matches, in document
// order, or an error for a page nested deeper than maxDepth or with more
// than maxNodes elements.
func (sel *selector) match(root *html.Node, maxDepth, maxNodes int) ([]*html.Node, error) {
	var out []*html.Node
	nodes := 0
	n := len(sel.alts)
	var walk func(parent *html.Node, up []walkState, depth int) error
	walk = func(parent *html.Node, up []walkState, depth int) error {
		if depth > maxDepth {
			return fmt.Errorf("the page nests elements more than %d deep (watch.extract.max_depth); no selector is applied to it", maxDepth)
		}
		var prev []walkState // the previous element sibling's state
		for c := parent.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if nodes++; nodes > maxNodes {
				return fmt.Errorf("the page has more than %d elements (watch.extract.max_nodes); no selector is applied to it", maxNodes)
			}
			st := make([]walkState, n)
			matched := false
			for a, steps := range sel.alts {
				var s walkState
				if up != nil {
					s.anc = up[a].m | up[a].anc
				}
				if prev != nil {
					s.sib = prev[a].m | prev[a].sib
				}
				for i, stp := range steps {
					var linked bool
					switch stp.comb {
					case 0:
						linked = true
					case ' ':
						linked = s.anc&(1<<(i-1)) != 0
					case '>':
						linked = up != nil && up[a].m&(1<<(i-1)) != 0
					case '+':
						linked = prev != nil && prev[a].m&(1<<(i-1)) != 0
					case '~':
						linked = s.sib&(1<<(i-1)) != 0
					}
					if linked && stp.m.Match(c) {
						s.m |= 1 << i
					}
				}
				st[a] = s
				matched = matched || s.m&(1<<(len(steps)-1)) != 0
			}
			if matched {
				out = append(out, c)
			}
			if err := walk(c, st, depth+1); err != nil {
				return err
			}
			prev = st
		}
		return nil
	}
	if err := walk(root, nil, 1); err != nil {
		return nil, err
	}
	return out, nil
}
