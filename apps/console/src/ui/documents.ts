import { ok } from '../api/client';
import { downloadCsv } from './csv';

/**
 * Documents the platform renders itself (a report's CSV, its printable page, a statement's CSV) are
 * fetched with the operator's token like any call, never opened by address: the address alone would
 * carry no token, and putting one in it would leave it in the history.
 */
export interface TextDocument {
  text: string;
  /** the name the platform gave it (Content-Disposition), when it did */
  filename?: string;
}

/** A call made with `parseAs: 'text'`: its text and file name, or the refusal as an ApiFailure. */
export async function textOf(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<TextDocument> {
  let response: Response | undefined;
  const text = await ok(
    call.then((result) => {
      response = result.response;
      return result;
    }),
  );
  const disposition = response?.headers.get('content-disposition') ?? '';
  const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1];
  return { text: String(text ?? ''), filename };
}

/** Saves a CSV document the platform produced, under the platform's file name when it gave one. */
export async function saveCsv(fallbackName: string, fetchDocument: () => Promise<TextDocument>): Promise<void> {
  const document = await fetchDocument();
  downloadCsv(document.filename ?? fallbackName, document.text);
}

/**
 * Opens a printable HTML document in a new tab. The tab is opened at once, inside the click (a tab
 * opened after an await is a popup the browser may block), then pointed at the document once it
 * arrived; it closes again when the platform refused.
 */
export async function openPrintable(fetchHtml: () => Promise<TextDocument>): Promise<void> {
  const tab = window.open('', '_blank');
  try {
    const html = (await fetchHtml()).text;
    const url = URL.createObjectURL(new Blob([html], { type: 'text/html;charset=utf-8' }));
    if (tab) tab.location.href = url;
    else window.location.assign(url);
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (failure) {
    tab?.close();
    throw failure;
  }
}
