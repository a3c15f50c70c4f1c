package clientconfig_test

import (
	"fmt"

	"github.com/fanout-inspector/inspector/engine/clientconfig"
)

// Load a client's config, pick a server by name and turn it into the
// engine's target; a VS Code input is given as a person would type it.
func Example() {
	found := clientconfig.Found{Files: []clientconfig.File{
		clientconfig.Load("testdata/claude_desktop_config.json"),
		clientconfig.Load("testdata/vscode/.vscode/mcp.json"),
	}}
	for _, s := range found.Servers() {
		fmt.Printf("%-10s %-5s %s\n", s.Name, s.Transport, s.Summary())
	}

	s, _, err := found.Pick("perplexity")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range s.Inputs() {
		fmt.Printf("input %s (password %v)\n", in.ID, in.Password)
	}
	t, err := s.Target(clientconfig.Values{Inputs: map[string]string{"perplexity-key": "pplx-…"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t)
	// Output:
	// filesystem stdio npx -y @modelcontextprotocol/server-filesystem /home/me/Desktop
	// weather    stdio uvx weather-mcp --units metric
	// perplexity stdio npx -y server-perplexity-ask --region '${input:region}'
	// remote     sse   http://127.0.0.1:9000/sse
	// fetch      http  http://127.0.0.1:9001/mcp
	// input perplexity-key (password true)
	// input region (password false)
	// stdio: npx -y server-perplexity-ask --region eu-west-1
}
