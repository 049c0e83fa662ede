#!/usr/bin/env python3
"""Local server example for Desktop Companion (developer mode, guide §15, §20 F).

A small HTTP server, Python 3 standard library only, that the "My PC (local
server)" plugin talks to:

    GET  /time            -> {"time": "14:05", "date": "2026-11-29"}
    POST /note {"text"}   -> appends one line to notes.txt next to this script
                             -> {"saved": true, "notes": <number of notes>}

Run it:   python server.py          (stop it with Ctrl-C)
Options:  --port 8420  (the plugin's manifest declares 8420: change both together)

Safety, because other programs on the PC and web pages open in a browser can
reach localhost too:
  * it listens on 127.0.0.1 only, never on the network;
  * every request needs "Authorization: Bearer <token>". The token is created
    on the first start, saved in token.txt next to this script and printed:
    paste it in the plugin's settings (Server token). Delete token.txt to get a
    new one on the next start;
  * requests whose Host is not 127.0.0.1:<port> or localhost:<port>, and
    requests that carry an Origin or Sec-Fetch-* header (sent by browsers), are
    refused, whatever their token;
  * arguments are checked (type, length) like any user input.
"""

import argparse
import datetime
import json
import os
import secrets
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN_FILE = os.path.join(HERE, 'token.txt')
NOTES_FILE = os.path.join(HERE, 'notes.txt')

MAX_BODY = 4096        # bytes; a note is 500 characters at most
MAX_NOTE = 500         # characters, like the plugin's maxLength

ROUTES = {'/time': 'GET', '/note': 'POST'}

notes_lock = threading.Lock()


def load_or_create_token():
    """Reads token.txt, or creates it with a new random token."""
    try:
        with open(TOKEN_FILE, encoding='utf-8') as f:
            token = f.read().strip()
        if len(token) >= 32:
            return token, False
        print('token.txt is too short or empty: creating a new token.')
    except FileNotFoundError:
        pass
    token = secrets.token_hex(32)
    # 0o600: only this user can read it (ignored on Windows, harmless).
    fd = os.open(TOKEN_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w', encoding='utf-8') as f:
        f.write(token + '\n')
    return token, True


def clean_text(text):
    """One line, no control or invisible characters."""
    out = []
    for c in text:
        code = ord(c)
        if c in '\r\n\t':
            out.append(' ')
        elif code < 32 or code == 127 or 0x80 <= code < 0xA0:
            continue
        elif code in (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF) or 0x202A <= code <= 0x202E \
                or 0x2066 <= code <= 0x2069 or 0x200E <= code <= 0x200F:
            continue
        else:
            out.append(c)
    return ' '.join(''.join(out).split())


def count_notes():
    try:
        with open(NOTES_FILE, encoding='utf-8') as f:
            return sum(1 for line in f if line.strip())
    except FileNotFoundError:
        return 0


class ApiError(Exception):
    def __init__(self, status, error, message, headers=None):
        super().__init__(message)
        self.status, self.error, self.message = status, error, message
        self.headers = headers or {}


class Handler(BaseHTTPRequestHandler):
    server_version = 'LocalServerExample/1.0'
    sys_version = ''
    protocol_version = 'HTTP/1.1'

    # --- plumbing ------------------------------------------------------

    def do_GET(self):
        self.handle_request('GET')

    def do_POST(self):
        self.handle_request('POST')

    def do_PUT(self):
        self.handle_request('PUT')

    def do_PATCH(self):
        self.handle_request('PATCH')

    def do_DELETE(self):
        self.handle_request('DELETE')

    def do_HEAD(self):
        self.handle_request('HEAD')

    def do_OPTIONS(self):
        self.handle_request('OPTIONS')

    def handle_request(self, method):
        try:
            self.check_caller()
            path = self.path.split('?', 1)[0]
            expected = ROUTES.get(path)
            if expected is None:
                raise ApiError(404, 'not_found', f'Unknown path {path}. Paths: GET /time, POST /note.')
            if method != expected:
                raise ApiError(405, 'method_not_allowed', f'{path} only accepts {expected}.',
                               {'Allow': expected})
            self.check_token()
            body = self.read_json_body()
            if path == '/time':
                result = self.get_time()
            else:
                result = self.add_note(body)
            self.send_json(200, result)
        except ApiError as e:
            self.close_connection = True  # a body may be left unread: don't reuse the connection
            self.send_json(e.status, {'error': e.error, 'message': e.message}, e.headers)
        except Exception as e:  # never leak a traceback to the caller
            print(f'Unexpected error: {e!r}', file=sys.stderr)
            self.close_connection = True
            self.send_json(500, {'error': 'internal', 'message': 'The server failed, see its terminal.'})

    def check_caller(self):
        """Refuses what a browser would send, and a Host that is not ours."""
        port = self.server.server_address[1]
        host = (self.headers.get('Host') or '').strip().lower()
        if host not in (f'127.0.0.1:{port}', f'localhost:{port}'):
            raise ApiError(421, 'wrong_host', f'Host must be 127.0.0.1:{port} or localhost:{port}.')
        if self.headers.get('Origin') is not None or any(
                name.lower().startswith('sec-fetch-') for name in self.headers.keys()):
            raise ApiError(403, 'browser_request', 'Requests from a web browser are refused.')

    def check_token(self):
        expected = f'Bearer {self.server.token}'.encode('utf-8')
        got = (self.headers.get('Authorization') or '').encode('utf-8', 'replace')
        if not secrets.compare_digest(got, expected):
            raise ApiError(401, 'unauthorized',
                           'Missing or wrong token: paste the token shown by server.py in the plugin settings.')

    def read_json_body(self):
        if self.headers.get('Transfer-Encoding'):
            raise ApiError(411, 'length_required', 'Send the body with a Content-Length, not chunked.')
        length_text = self.headers.get('Content-Length') or '0'
        if not length_text.isdigit():
            raise ApiError(400, 'bad_request', 'Invalid Content-Length.')
        length = int(length_text)
        if length > MAX_BODY:
            raise ApiError(413, 'too_large', f'The body is over {MAX_BODY} bytes.')
        raw = self.rfile.read(length) if length else b''
        if not raw.strip():
            return {}
        content_type = (self.headers.get('Content-Type') or '').split(';')[0].strip().lower()
        if content_type != 'application/json':
            raise ApiError(415, 'unsupported_media_type', 'The body must be application/json.')
        try:
            body = json.loads(raw.decode('utf-8'))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ApiError(400, 'bad_json', 'The body is not valid JSON.')
        if not isinstance(body, dict):
            raise ApiError(400, 'bad_json', 'The body must be a JSON object.')
        return body

    def send_json(self, status, payload, headers=None):
        data = json.dumps(payload, ensure_ascii=False).encode('utf-8')
        self.send_response(status)
        self.send_header('Content-Type', 'application/json; charset=utf-8')
        self.send_header('Content-Length', str(len(data)))
        self.send_header('Cache-Control', 'no-store')
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header('Connection', 'close')
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(data)

    def log_message(self, format, *args):
        # One short line per request, without the headers (they hold the token).
        print(f'{self.log_date_time_string()}  {self.address_string()}  {format % args}')

    # --- the two actions -------------------------------------------------

    def get_time(self):
        now = datetime.datetime.now()
        return {'time': now.strftime('%H:%M'), 'date': now.strftime('%Y-%m-%d')}

    def add_note(self, body):
        unknown = sorted(set(body) - {'text'})
        if unknown:
            raise ApiError(400, 'bad_argument', f'Unknown argument: {unknown[0]}. Only text is accepted.')
        text = body.get('text')
        if text is None:
            raise ApiError(400, 'bad_argument', 'Missing argument: text.')
        if not isinstance(text, str):
            raise ApiError(400, 'bad_argument', 'Argument text must be a string.')
        text = clean_text(text)
        if not text:
            raise ApiError(400, 'bad_argument', 'Argument text is empty.')
        if len(text) > MAX_NOTE:
            raise ApiError(400, 'bad_argument', f'Argument text is over {MAX_NOTE} characters.')
        stamp = datetime.datetime.now().strftime('%Y-%m-%d %H:%M')
        with notes_lock:
            with open(NOTES_FILE, 'a', encoding='utf-8') as f:
                f.write(f'{stamp}  {text}\n')
            count = count_notes()
        return {'saved': True, 'notes': count}


def stop_on_signal(signum, frame):
    raise KeyboardInterrupt


def main():
    sys.stdout.reconfigure(line_buffering=True)  # lines show up at once, even in a log file
    parser = argparse.ArgumentParser(description='Local server example for Desktop Companion.')
    parser.add_argument('--port', type=int, default=8420,
                        help='port on 127.0.0.1 (default 8420, the port the plugin declares)')
    args = parser.parse_args()

    token, created = load_or_create_token()
    try:
        server = ThreadingHTTPServer(('127.0.0.1', args.port), Handler)
    except OSError as e:
        sys.exit(f'Cannot listen on 127.0.0.1:{args.port}: {e.strerror}. Is the server already running?')
    server.daemon_threads = True
    server.token = token

    # Ctrl-C (and a plain "kill") stop the server cleanly.
    signal.signal(signal.SIGINT, stop_on_signal)
    signal.signal(signal.SIGTERM, stop_on_signal)

    print(f'Local server example listening on http://127.0.0.1:{args.port}')
    print(('New token, saved in ' if created else 'Token, from ') + TOKEN_FILE + ':')
    print(f'    {token}')
    print('Paste it in the plugin settings (Server token). Notes go to ' + NOTES_FILE)
    print('Press Ctrl-C to stop.')
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        print('Server stopped.')


if __name__ == '__main__':
    main()
