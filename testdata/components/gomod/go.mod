module example.com/inventory

go 1.21

require (
	github.com/BurntSushi/toml v1.3.2
	github.com/google/uuid v1.3.0
	golang.org/x/text v0.13.0 // indirect
	gopkg.in/yaml.v3 v3.0.1
)

require github.com/pkg/errors v0.9.1 // indirect

replace github.com/pkg/errors => github.com/pkg/errors v0.9.0

replace example.com/internal/tools => ../tools
