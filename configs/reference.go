package configs

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Reference renders default.yaml as a Markdown table, one row per setting:
// its key path, its default and the comment above it. The README embeds
// it between the markers below, and a test keeps the two in step.
func Reference() (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(DefaultYAML, &doc); err != nil {
		return "", fmt.Errorf("config: default.yaml: %w", err)
	}
	var b strings.Builder
	b.WriteString("| key | default | meaning |\n|---|---|---|\n")
	if len(doc.Content) == 1 {
		walk(&b, doc.Content[0], "", "")
	}
	return b.String(), nil
}

// ReferenceBegin and ReferenceEnd delimit the generated table in README.md.
const (
	ReferenceBegin = "<!-- configuration reference: generated from configs/default.yaml by `go test ./configs -update`; do not edit -->"
	ReferenceEnd   = "<!-- end of configuration reference -->"
)

// walk writes n's settings. A setting with no comment of its own belongs
// to the comment above the run of lines it stands in (min_bid and max_bid
// under "Bounds of a bid"; a section's first settings under the section's
// comment): its row points there.
func walk(b *strings.Builder, n *yaml.Node, prefix, parent string) {
	if n.Kind != yaml.MappingNode {
		return
	}
	lead, end := parent, n.Line-1 // the comment the run so far stands under; the line it reached
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := prefix + k.Value
		comment := cleanComment(k.HeadComment)
		switch {
		case comment != "":
			lead = key
		case k.Line != end+1:
			lead = "" // a blank line ended the run
		}
		end = lastLine(v)
		if v.Kind == yaml.MappingNode && len(v.Content) > 0 {
			if comment != "" {
				fmt.Fprintf(b, "| **%s** | | %s |\n", key, comment)
			}
			walk(b, v, key+".", lead)
			continue
		}
		if comment == "" && lead != "" {
			comment = "See `" + lead + "`."
		}
		fmt.Fprintf(b, "| `%s` | `%s` | %s |\n", key, value(v), comment)
	}
}

// lastLine is the last line n's value takes in the file.
func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}

func value(v *yaml.Node) string {
	switch v.Kind {
	case yaml.SequenceNode:
		var items []string
		for _, c := range v.Content {
			items = append(items, c.Value)
		}
		return "[" + strings.Join(items, ", ") + "]"
	case yaml.MappingNode:
		return "{}"
	default:
		return v.Value
	}
}

func cleanComment(c string) string {
	var parts []string
	for _, line := range strings.Split(c, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		if line != "" {
			parts = append(parts, line)
		}
	}
	return strings.ReplaceAll(strings.Join(parts, " "), "|", `\|`)
}
