module github.com/adi-go/adi

go 1.26

require (
	github.com/fsnotify/fsnotify v1.10.1
	github.com/go-delve/delve v1.27.2
	github.com/google/go-dap v0.12.0
	github.com/mattn/go-isatty v0.0.20
	github.com/sashabaranov/go-openai v1.43.0
	golang.org/x/arch v0.28.0
	golang.org/x/sys v0.46.0
)

require (
	github.com/cilium/ebpf v0.22.0 // indirect
	go.yaml.in/yaml/v3 v3.0.4 // indirect
	golang.org/x/telemetry v0.0.0-20241106142447-58a1122356f5 // indirect
)
