package configs

import _ "embed"

// DefaultYAML is configs/default.yaml, the single source of every default.
//
//go:embed default.yaml
var DefaultYAML []byte
