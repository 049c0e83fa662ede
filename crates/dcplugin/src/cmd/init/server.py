#!/usr/bin/env python3
"""Server of the "{{NAME}}" plugin: made by dcplugin init, yours to change.

    GET /{{ACTION}}   -> {"status": "ok", "time": "14:05"}

Run it:  python3 server.py [--port {{PORT}}]   (Ctrl-C stops it)

It listens on 127.0.0.1 only. Every request needs "Authorization: Bearer
<token>": the token is made on the first start, saved in token.txt next to
this file and printed; give it to the plugin (its Server token setting).
Requests a web browser sends (Origin or Sec-Fetch-* headers, another Host)
are refused, whatever their token.
"""

import argparse
import datetime
import json
import os
import secrets
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN_FILE = os.path.join(HERE, 'token.txt')


def load_or_create_token():
    try:
        with open(TOKEN_FILE, encoding='utf-8') as f:
            token = f.read().strip()
        if len(token) >= 32:
            return token
    except FileNotFoundError:
        pass
    token = secrets.token_hex(32)
    fd = os.open(TOKEN_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w', encoding='utf-8') as f:
        f.write(token + '\n')
    return token


class Handler(BaseHTTPRequestHandler):
    server_version = 'PluginServer/0.1'
    sys_version = ''

    def do_GET(self):
        port = self.server.server_address[1]
        host = (self.headers.get('Host') or '').strip().lower()
        if host not in (f'127.0.0.1:{port}', f'localhost:{port}'):
            return self.send_json(421, {'error': 'wrong_host'})
        if self.headers.get('Origin') is not None or any(
                name.lower().startswith('sec-fetch-') for name in self.headers.keys()):
            return self.send_json(403, {'error': 'browser_request'})
        expected = f'Bearer {self.server.token}'.encode('utf-8')
        got = (self.headers.get('Authorization') or '').encode('utf-8', 'replace')
        if not secrets.compare_digest(got, expected):
            return self.send_json(401, {'error': 'unauthorized',
                                        'message': 'Missing or wrong token: give the plugin the token in token.txt.'})
        if self.path.split('?', 1)[0] != '/{{ACTION}}':
            return self.send_json(404, {'error': 'not_found'})
        # Do your work here, then answer with the few fields the AI needs.
        return self.send_json(200, {'status': 'ok', 'time': datetime.datetime.now().strftime('%H:%M')})

    def send_json(self, status, payload):
        data = json.dumps(payload).encode('utf-8')
        self.send_response(status)
        self.send_header('Content-Type', 'application/json; charset=utf-8')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        # One short line per request, never the headers (they hold the token).
        print(f'{self.log_date_time_string()}  {format % args}')


def main():
    sys.stdout.reconfigure(line_buffering=True)
    parser = argparse.ArgumentParser(description='Server of the {{NAME}} plugin.')
    parser.add_argument('--port', type=int, default={{PORT}}, help='port on 127.0.0.1 (the plugin declares {{PORT}})')
    args = parser.parse_args()
    token = load_or_create_token()
    try:
        server = ThreadingHTTPServer(('127.0.0.1', args.port), Handler)
    except OSError as error:
        # Most often another program (or another copy of this one) has the port.
        print(f'Cannot listen on 127.0.0.1:{args.port}: {error.strerror}.', file=sys.stderr)
        print('Stop the program that uses this port, or change the port in manifest.json and start this with --port.',
              file=sys.stderr)
        sys.exit(1)
    server.daemon_threads = True
    server.token = token
    print(f'Listening on http://127.0.0.1:{args.port}')
    print(f'Token (saved in {TOKEN_FILE}):')
    print(f'    {server.token}')
    print('Press Ctrl-C to stop.')
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == '__main__':
    main()
