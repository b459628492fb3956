package extract

import "golang.org/x/net/html/atom"

// Element categories.
const (
	catBlock  uint8 = 1 << iota // separates words
	catSkip                     // never contributes text
	catMain                     // main content: main, article
	catChrome                   // dropped inside main content: nav, aside
	catHead                     // the document head
	catTitle                    // the title
	catVoid                     // has no content and no end tag
	catRaw                      // the tokenizer reads its content as one text token
)

// category returns the categories of an element.
func category(a atom.Atom) uint8 {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Iframe, atom.Noembed, atom.Noframes, atom.Xmp:
		return catSkip | catBlock | catRaw
	case atom.Template, atom.Svg, atom.Math, atom.Object, atom.Canvas, atom.Select:
		return catSkip | catBlock
	case atom.Title:
		return catTitle | catBlock | catRaw
	case atom.Textarea, atom.Plaintext:
		return catBlock | catRaw
	case atom.Main, atom.Article:
		return catMain | catBlock
	case atom.Nav, atom.Aside:
		return catChrome | catBlock
	case atom.Head:
		return catHead | catBlock
	case atom.Br, atom.Hr, atom.Img, atom.Input, atom.Embed, atom.Wbr:
		return catVoid | catBlock
	case atom.Area, atom.Base, atom.Col, atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track, atom.Keygen:
		return catVoid
	case atom.Address, atom.Blockquote, atom.Body, atom.Button, atom.Caption, atom.Center, atom.Dd, atom.Details,
		atom.Dialog, atom.Dir, atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure,
		atom.Footer, atom.Form, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header,
		atom.Hgroup, atom.Html, atom.Label, atom.Legend, atom.Li, atom.Listing, atom.Menu, atom.Ol,
		atom.Option, atom.Optgroup, atom.Output, atom.P, atom.Pre, atom.Section, atom.Summary,
		atom.Table, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr, atom.Ul, atom.Video, atom.Audio:
		return catBlock
	}
	return 0
}

// closesSelf reports whether a start tag of a closes an open element of
// the same name on top of the stack, as "<li>a<li>b" does.
func closesSelf(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Li, atom.Dt, atom.Dd, atom.Option, atom.Tr, atom.Td, atom.Th:
		return true
	}
	return false
}

// SeparatesWords reports whether the element a ends the word before it
// and starts a new one (p, div, td, li, br, ...), as the page text reads
// it; a watched part of a page is read the same way.
func SeparatesWords(a atom.Atom) bool { return category(a)&catBlock != 0 }
