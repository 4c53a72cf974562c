package acp

import (
	"fmt"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// PromptText is a prompt as the text the agent is asked: text blocks as
// they are, a resource link as a line naming it, an embedded text
// resource inside <resource> tags. Images, audio and binary resources are
// not taken (initialize says so): an errs.Invalid error names the block.
func PromptText(blocks []ContentBlock) (string, error) {
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
	}
	for i, c := range blocks {
		switch c.Type {
		case "text":
			b.WriteString(c.Text)
		case "resource_link":
			if c.URI == "" {
				return "", errs.Errorf(errs.Invalid, "session/prompt", "prompt[%d]: resource_link has no uri", i)
			}
			sep()
			name := c.Name
			if name == "" {
				name = c.URI
			}
			fmt.Fprintf(&b, "[%s](%s)\n", name, c.URI)
		case "resource":
			if c.Resource == nil || c.Resource.URI == "" {
				return "", errs.Errorf(errs.Invalid, "session/prompt", "prompt[%d]: resource has no resource.uri", i)
			}
			if c.Resource.Text == "" && c.Resource.Blob != "" {
				return "", errs.Errorf(errs.Invalid, "session/prompt", "prompt[%d]: binary resource %s is not supported: only text resources are", i, c.Resource.URI)
			}
			sep()
			fmt.Fprintf(&b, "<resource uri=%q>\n%s\n</resource>\n", c.Resource.URI, c.Resource.Text)
		case "image", "audio":
			return "", errs.Errorf(errs.Invalid, "session/prompt", "prompt[%d]: %s content is not supported (initialize's promptCapabilities say so)", i, c.Type)
		default:
			return "", errs.Errorf(errs.Invalid, "session/prompt", "prompt[%d]: unknown content type %q", i, c.Type)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", errs.New(errs.Invalid, "session/prompt", "the prompt has no text")
	}
	return b.String(), nil
}
