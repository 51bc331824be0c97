// The ground floor: the content blocks a conversation is made of, and the tool schemas a model is offered. Imports
// nothing, so every room (the tool contract, the conversation types, every model provider) may import it.

export interface TextContent {
  type: 'text';
  text: string;
}

/** An image or a video sent to the model inline (base64). */
export interface MediaContent {
  type: 'image' | 'video';
  data: string;
  mimeType: string;
}

/** What a tool result holds (and a user message, besides plain text). */
export type ToolContent = TextContent | MediaContent;

/** The JSON schema a provider sends for one tool (what the model sees of it). */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: unknown;
}
