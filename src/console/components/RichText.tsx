/**
 * A rich_text value as people read it: Markdown rendered to HTML by markdown-it with raw
 * HTML switched off (any tag in the text is shown as text, never parsed) and its link
 * check (no `javascript:`, `vbscript:`, `file:` or `data:` links), links opened without
 * handing the page over (`rel="noopener noreferrer"`). The page's Content-Security-Policy
 * allows no inline script besides, so nothing in a value can run.
 */
import MarkdownIt from 'markdown-it';

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });
const renderToken = markdown.renderer.renderToken.bind(markdown.renderer);
markdown.renderer.rules.link_open = (tokens, idx, options) => {
  const token = tokens[idx]!;
  token.attrSet('rel', 'noopener noreferrer nofollow');
  token.attrSet('target', '_blank');
  return renderToken(tokens, idx, options);
};

/** The HTML of a Markdown text: every tag in it escaped, every link checked. */
export function markdownHtml(text: string): string {
  return markdown.render(text);
}

export function RichText({ text }: { text: string }) {
  return <div className="rich-text" dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;
}
