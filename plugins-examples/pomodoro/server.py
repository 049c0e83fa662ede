#!/usr/bin/env python3
"""Pomodoro timer example for Desktop Companion (developer mode, guide §15, §16, §20 G).

A focus timer in a small HTTP server, Python 3 standard library only. The
"Pomodoro timer" plugin drives it with three tools:

    POST /start {"minutes": 1-120 (25), "break_minutes": 1-30 (5)}
         idle   -> starts the next focus session
         break  -> skips the rest of the break and starts the next session
         focus  -> refused (409): a session is already running
    GET  /status -> {"state": "idle" | "focus" | "break", "session", "remaining_seconds"}
    POST /stop   -> stops the timer and resets the cycle of 4 sessions

and it speaks first with two events (guide §16): when a focus session ends it
sends focus_done ("Session 2 of 4 done. Break: 5 minutes."), when the break
ends it sends break_done. It prints what the app answered.

Run it:   python server.py            (Ctrl-C to stop)
          python server.py --test     (one minute lasts 15 seconds)
Options:  --port 8421                 (the plugin's manifest declares 8421)
          --events-url URL            (default http://127.0.0.1:8440/v1/events/pomodoro)

Two tokens, one per direction:
  * token.txt: the server token, created on the first start and printed. Paste
    it in the plugin's settings (Server token). The plugin sends it with every
    request; anything without it is refused.
  * event-token.txt: the event token, that you copy from the plugin's details
    in the app (Events > Token > Copy) and save in this file, next to
    server.py. It is read again before each event: after "New token", paste
    the new one, no restart needed.

Safety: listens on 127.0.0.1 only; refuses a Host other than 127.0.0.1:<port>
or localhost:<port>, and any request with an Origin or Sec-Fetch-* header
(what a web page in a browser would send); checks every argument.
"""

import argparse
import json
import math
import os
import queue
import secrets
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN_FILE = os.path.join(HERE, 'token.txt')
EVENT_TOKEN_FILE = os.path.join(HERE, 'event-token.txt')
DEFAULT_EVENTS_URL = 'http://127.0.0.1:8440/v1/events/pomodoro'

SESSIONS_PER_CYCLE = 4
MAX_BODY = 1024  # bytes
ARGUMENTS = {    # name: (minimum, maximum, default), all whole minutes
    'minutes': (1, 120, 25),
    'break_minutes': (1, 30, 5),
}
ROUTES = {'/start': 'POST', '/status': 'GET', '/stop': 'POST'}


def log(text):
    print(f'{time.strftime("%H:%M:%S")}  {text}', flush=True)


def load_or_create_token():
    """Reads token.txt, or creates it with a new random token."""
    try:
        with open(TOKEN_FILE, encoding='utf-8') as f:
            token = f.read().strip()
        if len(token) >= 32:
            return token, False
        log('token.txt is too short or empty: creating a new token.')
    except FileNotFoundError:
        pass
    token = secrets.token_hex(32)
    # 0o600: only this user can read it (ignored on Windows, harmless).
    fd = os.open(TOKEN_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w', encoding='utf-8') as f:
        f.write(token + '\n')
    return token, True


def minutes_text(n):
    return f'{n} minute' if n == 1 else f'{n} minutes'


# --- events: the program speaks first (guide §16) --------------------------

class EventSender:
    """Sends events one after the other, on its own thread, so the timer
    never waits for the app."""

    def __init__(self, url):
        self.url = url
        self.queue = queue.Queue()
        self.thread = threading.Thread(target=self.run, name='events', daemon=True)
        self.thread.start()

    def send(self, event, text):
        self.queue.put((event, text))

    def close(self):
        self.queue.put(None)
        self.thread.join(timeout=6)

    def run(self):
        while True:
            item = self.queue.get()
            if item is None:
                return
            event, text = item
            retry_after = self.deliver(event, text)
            if retry_after is not None:
                # Too many events: wait what the app asked for, then try once more.
                time.sleep(retry_after)
                log(f'Event {event}: second try.')
                self.deliver(event, text, last_try=True)

    def read_event_token(self):
        try:
            with open(EVENT_TOKEN_FILE, encoding='utf-8') as f:
                token = f.read().strip()
        except FileNotFoundError:
            token = ''
        if not token:
            log(f'Event not sent: no event token. In the app, open the plugin\'s details, '
                f'Events > Token > Copy, and save it in {EVENT_TOKEN_FILE}.')
            return None
        if not all(33 <= ord(c) < 127 for c in token):
            log('Event not sent: event-token.txt holds spaces or unusual characters; '
                'copy the token again.')
            return None
        if len(token) != 64 or any(c not in '0123456789abcdef' for c in token):
            log('Warning: event-token.txt does not look like an event token '
                '(64 characters, 0-9 and a-f). Sending anyway.')
        return token

    def deliver(self, event, text, last_try=False):
        """Sends one event and prints the app's answer in plain words.
        Returns a delay in seconds when the app asks to retry later."""
        token = self.read_event_token()
        if token is None:
            return None
        request = urllib.request.Request(
            self.url, data=json.dumps({'event': event, 'text': text}).encode('utf-8'),
            method='POST',
            headers={'Authorization': f'Bearer {token}', 'Content-Type': 'application/json'})
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                status = response.status
                body = response.read(4096)
        except urllib.error.HTTPError as e:
            status = e.code
            body = e.read(4096)
            retry = e.headers.get('Retry-After')
        except urllib.error.URLError as e:
            reason = e.reason
            if isinstance(reason, ConnectionRefusedError):
                log(f'Event {event} not delivered: the app is not listening ({self.url}). '
                    'Is Desktop Companion running, with developer mode on and at least one '
                    'event of this plugin switched on?')
            elif isinstance(reason, (socket.timeout, TimeoutError)):
                log(f'Event {event} not delivered: the app did not answer within 5 seconds.')
            else:
                log(f'Event {event} not delivered: {reason}.')
            return None
        except (socket.timeout, TimeoutError):
            log(f'Event {event} not delivered: the app did not answer within 5 seconds.')
            return None
        except OSError as e:
            log(f'Event {event} not delivered: {e}.')
            return None
        else:
            retry = None

        reason = answer_reason(body)
        if status == 202 or 200 <= status < 300:
            log(f'Event {event} accepted ({status}): the companion will say it when it is listening.')
        elif status == 401:
            log(f'Event {event} refused (401): wrong event token. Copy it again from the plugin\'s '
                f'details (Events > Token > Copy) into {EVENT_TOKEN_FILE}; no restart needed.')
        elif status == 403:
            explained = {
                'event_off': f'the event {event} is switched off: turn it on in the plugin\'s '
                             'details, section Events',
                'plugin_off': 'the plugin is switched off in the app',
                'dev_mode_off': 'developer mode is off in the app (Plugins tab, top right)',
            }.get(reason, reason or 'no reason given')
            log(f'Event {event} refused (403): {explained}.')
        elif status == 429:
            seconds = parse_retry_after(retry)
            if last_try or seconds is None or seconds > 60:
                log(f'Event {event} refused (429): too many events, the app asks to wait '
                    f'{retry or "a while"} seconds. This event is dropped.')
                return None
            log(f'Event {event} refused (429): too many events, the app asks to wait '
                f'{seconds} seconds.')
            return seconds
        elif status == 404:
            if reason == 'unknown_event':
                log(f'Event {event} refused (404): the plugin does not declare this event; '
                    'check the events of manifest.json.')
            else:
                log(f'Event {event} refused (404): wrong address {self.url} (check --events-url '
                    'and the plugin\'s slug).')
        else:
            log(f'Event {event} refused ({status}): {reason or "no details"}.')
        return None


def answer_reason(body):
    """The reason in the app's JSON answer, whatever the key it uses."""
    text = body.decode('utf-8', 'replace').strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:200]
    if isinstance(data, dict):
        for key in ('reason', 'error', 'code', 'message'):
            if isinstance(data.get(key), str):
                return data[key]
    return text[:200]


def parse_retry_after(value):
    try:
        seconds = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return seconds if seconds >= 0 else None


# --- the timer ---------------------------------------------------------------

class Refused(Exception):
    """A request the timer refuses, with its HTTP status and a message for the AI."""

    def __init__(self, status, error, message):
        super().__init__(message)
        self.status, self.error, self.message = status, error, message


class Timer:
    def __init__(self, seconds_per_minute, events):
        self.seconds_per_minute = seconds_per_minute
        self.events = events
        self.cond = threading.Condition()
        self.state = 'idle'
        self.session = 0          # current session, or the last one, 0 after a reset
        self.ends_at = 0.0        # time.monotonic() at which focus or break ends
        self.break_minutes = 5
        self.closing = False
        self.thread = threading.Thread(target=self.run, name='timer', daemon=True)
        self.thread.start()

    def remaining(self):
        if self.state == 'idle':
            return 0
        return max(0, math.ceil(self.ends_at - time.monotonic()))

    def snapshot(self, message):
        return {'state': self.state, 'session': self.session,
                'remaining_seconds': self.remaining(), 'message': message}

    def start(self, minutes, break_minutes):
        with self.cond:
            if self.state == 'focus':
                left = math.ceil(self.remaining() / self.seconds_per_minute)
                raise Refused(409, 'focus_running',
                              f'A focus session is already running: session {self.session} of '
                              f'{SESSIONS_PER_CYCLE}, about {minutes_text(left)} left. Nothing was changed.')
            skipped = self.state == 'break'
            self.session = self.session + 1 if self.session < SESSIONS_PER_CYCLE else 1
            self.state = 'focus'
            self.break_minutes = break_minutes
            self.ends_at = time.monotonic() + minutes * self.seconds_per_minute
            self.cond.notify_all()
            message = (('Break skipped. ' if skipped else '')
                       + f'Session {self.session} of {SESSIONS_PER_CYCLE} started: '
                       f'{minutes_text(minutes)} of focus, then a {break_minutes}-minute break.')
            log(message)
            return self.snapshot(message)

    def status(self):
        with self.cond:
            if self.state == 'idle':
                message = ('The timer is idle. ' + (
                    f'Last session: {self.session} of {SESSIONS_PER_CYCLE}.' if self.session
                    else 'No session yet in this cycle.'))
            else:
                what = 'Focus session' if self.state == 'focus' else 'Break after session'
                message = (f'{what} {self.session} of {SESSIONS_PER_CYCLE}, '
                           f'{self.remaining()} seconds left.')
            return self.snapshot(message)

    def stop(self):
        with self.cond:
            was = self.state
            self.state, self.session, self.ends_at = 'idle', 0, 0.0
            self.cond.notify_all()
            message = ('Timer stopped. ' if was != 'idle' else 'The timer was not running. ') + \
                'The next session will be session 1.'
            log(message)
            return self.snapshot(message)

    def close(self):
        with self.cond:
            self.closing = True
            self.cond.notify_all()
        self.thread.join(timeout=2)

    def run(self):
        """Ends focus sessions and breaks on time, and sends the events."""
        with self.cond:
            while not self.closing:
                if self.state == 'idle':
                    self.cond.wait()
                    continue
                left = self.ends_at - time.monotonic()
                if left > 0:
                    self.cond.wait(timeout=left)
                    continue
                if self.state == 'focus':
                    self.state = 'break'
                    self.ends_at = time.monotonic() + self.break_minutes * self.seconds_per_minute
                    text = (f'Session {self.session} of {SESSIONS_PER_CYCLE} done. '
                            f'Break: {minutes_text(self.break_minutes)}.')
                    log(f'Focus session over: {text}')
                    self.events.send('focus_done', text)
                else:
                    self.state = 'idle'
                    if self.session >= SESSIONS_PER_CYCLE:
                        text = f'Break over. All {SESSIONS_PER_CYCLE} sessions of the cycle are done.'
                    else:
                        text = f'Break over. Next: session {self.session + 1} of {SESSIONS_PER_CYCLE}.'
                    log(text)
                    self.events.send('break_done', text)


# --- HTTP ----------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    server_version = 'PomodoroExample/1.0'
    sys_version = ''
    protocol_version = 'HTTP/1.1'

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
        timer = self.server.timer
        self.extra_headers = {}
        try:
            self.check_caller()
            path = self.path.split('?', 1)[0]
            expected = ROUTES.get(path)
            if expected is None:
                raise Refused(404, 'not_found',
                              f'Unknown path {path}. Paths: POST /start, GET /status, POST /stop.')
            if method != expected:
                self.extra_headers = {'Allow': expected}
                raise Refused(405, 'method_not_allowed', f'{path} only accepts {expected}.')
            self.check_token()
            body = self.read_json_body()
            if path == '/start':
                result = timer.start(*parse_start(body))
            elif path == '/status':
                result = timer.status()
            else:
                result = timer.stop()
            self.send_json(200, result)
        except Refused as e:
            self.close_connection = True  # a body may be left unread: don't reuse the connection
            self.send_json(e.status, {'error': e.error, 'message': e.message})
        except Exception as e:  # never leak a traceback to the caller
            log(f'Unexpected error: {e!r}')
            self.close_connection = True
            self.send_json(500, {'error': 'internal', 'message': 'The timer failed, see its terminal.'})

    def check_caller(self):
        """Refuses what a browser would send, and a Host that is not ours."""
        port = self.server.server_address[1]
        host = (self.headers.get('Host') or '').strip().lower()
        if host not in (f'127.0.0.1:{port}', f'localhost:{port}'):
            raise Refused(421, 'wrong_host', f'Host must be 127.0.0.1:{port} or localhost:{port}.')
        if self.headers.get('Origin') is not None or any(
                name.lower().startswith('sec-fetch-') for name in self.headers.keys()):
            raise Refused(403, 'browser_request', 'Requests from a web browser are refused.')

    def check_token(self):
        expected = f'Bearer {self.server.token}'.encode('utf-8')
        got = (self.headers.get('Authorization') or '').encode('utf-8', 'replace')
        if not secrets.compare_digest(got, expected):
            raise Refused(401, 'unauthorized',
                          'Missing or wrong token: paste the token shown by server.py in the plugin settings.')

    def read_json_body(self):
        if self.headers.get('Transfer-Encoding'):
            raise Refused(411, 'length_required', 'Send the body with a Content-Length, not chunked.')
        length_text = self.headers.get('Content-Length') or '0'
        if not length_text.isdigit():
            raise Refused(400, 'bad_request', 'Invalid Content-Length.')
        length = int(length_text)
        if length > MAX_BODY:
            raise Refused(413, 'too_large', f'The body is over {MAX_BODY} bytes.')
        raw = self.rfile.read(length) if length else b''
        if not raw.strip():
            return {}
        content_type = (self.headers.get('Content-Type') or '').split(';')[0].strip().lower()
        if content_type != 'application/json':
            raise Refused(415, 'unsupported_media_type', 'The body must be application/json.')
        try:
            body = json.loads(raw.decode('utf-8'))
        except (UnicodeDecodeError, ValueError):
            raise Refused(400, 'bad_json', 'The body is not valid JSON.')
        if not isinstance(body, dict):
            raise Refused(400, 'bad_json', 'The body must be a JSON object.')
        return body

    def send_json(self, status, payload):
        data = json.dumps(payload, ensure_ascii=False).encode('utf-8')
        self.send_response(status)
        self.send_header('Content-Type', 'application/json; charset=utf-8')
        self.send_header('Content-Length', str(len(data)))
        self.send_header('Cache-Control', 'no-store')
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header('Connection', 'close')
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(data)

    def log_message(self, format, *args):
        # One short line per request, without the headers (they hold the token).
        log(f'{self.address_string()}  {format % args}')


def parse_start(body):
    """Checks the arguments of /start; returns (minutes, break_minutes)."""
    unknown = sorted(set(body) - set(ARGUMENTS))
    if unknown:
        raise Refused(400, 'bad_argument',
                      f'Unknown argument: {unknown[0]}. Accepted: minutes, break_minutes.')
    values = []
    for name, (low, high, default) in ARGUMENTS.items():
        value = body.get(name)
        if value is None:
            values.append(default)
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or (isinstance(value, float) and not value.is_integer()):
            raise Refused(400, 'bad_argument', f'Argument {name} must be a whole number of minutes.')
        value = int(value)
        if not low <= value <= high:
            raise Refused(400, 'bad_argument', f'Argument {name} must be between {low} and {high}.')
        values.append(value)
    return tuple(values)


def stop_on_signal(signum, frame):
    raise KeyboardInterrupt


def main():
    sys.stdout.reconfigure(line_buffering=True)  # lines show up at once, even in a log file
    parser = argparse.ArgumentParser(description='Pomodoro timer example for Desktop Companion.')
    parser.add_argument('--port', type=int, default=8421,
                        help='port on 127.0.0.1 (default 8421, the port the plugin declares)')
    parser.add_argument('--events-url', default=DEFAULT_EVENTS_URL,
                        help=f'where events are sent (default {DEFAULT_EVENTS_URL})')
    parser.add_argument('--test', action='store_true',
                        help='test mode: one minute lasts 15 seconds')
    args = parser.parse_args()
    if not args.events_url.startswith(('http://127.0.0.1:', 'http://localhost:')):
        parser.error('--events-url must be http://127.0.0.1:<port>/... or http://localhost:<port>/...')

    token, created = load_or_create_token()
    events = EventSender(args.events_url)
    timer = Timer(15 if args.test else 60, events)
    try:
        server = ThreadingHTTPServer(('127.0.0.1', args.port), Handler)
    except OSError as e:
        sys.exit(f'Cannot listen on 127.0.0.1:{args.port}: {e.strerror}. Is the timer already running?')
    server.daemon_threads = True
    server.token = token
    server.timer = timer

    signal.signal(signal.SIGINT, stop_on_signal)   # Ctrl-C
    signal.signal(signal.SIGTERM, stop_on_signal)  # a plain "kill"

    print(f'Pomodoro timer listening on http://127.0.0.1:{args.port}'
          + ('  (test mode: one minute lasts 15 seconds)' if args.test else ''))
    print(('New server token, saved in ' if created else 'Server token, from ') + TOKEN_FILE + ':')
    print(f'    {token}')
    print('Paste it in the plugin settings (Server token).')
    print(f'Events go to {args.events_url}, with the event token read from {EVENT_TOKEN_FILE}'
          + ('' if os.path.exists(EVENT_TOKEN_FILE) else ' (not there yet: copy it from the '
             'plugin\'s details, Events > Token > Copy)') + '.')
    print('Press Ctrl-C to stop.')
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        timer.close()
        events.close()
        print('Timer stopped.')


if __name__ == '__main__':
    main()
