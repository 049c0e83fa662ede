#!/usr/bin/python3
"""A file manager's drag source for the end-to-end tests: a small GTK window
showing FILE that a real pointer (xdotool) can drag onto the app window, so
the drop travels the X drag-and-drop protocol (XDND) as a player's would.

usage: /usr/bin/python3 drag-source.py FILE [X Y]

Prints, one per line, as they happen: `READY x y w h` (the window's place on
the screen, once mapped), DRAG-BEGIN, DRAG-DATA-GET (the target asked for the
file's URI), DRAG-END, `DRAG-FAILED <reason>`; and EXIT on SIGTERM.
"""
import os
import signal
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

URI_LIST, TEXT = 0, 1


def say(line):
    print(line, flush=True)


def main():
    path = os.path.abspath(sys.argv[1])
    x, y = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) >= 4 else (0, 0)
    uri = GLib.filename_to_uri(path, None)

    window = Gtk.Window(title="drag source")
    window.set_decorated(False)
    window.set_default_size(200, 120)
    window.move(x, y)
    box = Gtk.EventBox()
    box.add(Gtk.Label(label=os.path.basename(path)))
    window.add(box)

    targets = [
        Gtk.TargetEntry.new("text/uri-list", 0, URI_LIST),
        Gtk.TargetEntry.new("text/plain", 0, TEXT),
    ]
    box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, targets, Gdk.DragAction.COPY)

    def data_get(_widget, _context, selection, info, _time):
        say("DRAG-DATA-GET")
        if info == URI_LIST:
            selection.set_uris([uri])
        else:
            selection.set_text(path, -1)

    def failed(_widget, _context, result):
        say(f"DRAG-FAILED {result.value_nick}")
        return False

    box.connect("drag-begin", lambda *_: say("DRAG-BEGIN"))
    box.connect("drag-data-get", data_get)
    box.connect("drag-end", lambda *_: say("DRAG-END"))
    box.connect("drag-failed", failed)

    def report_place():
        gdk_window = window.get_window()
        if gdk_window is None:
            return True
        _, ox, oy = gdk_window.get_origin()
        say(f"READY {ox} {oy} {window.get_allocated_width()} {window.get_allocated_height()}")
        return False

    # The window's place is known once the X server mapped it.
    window.connect("map-event", lambda *_: GLib.timeout_add(100, report_place) and False)

    def on_term():
        say("EXIT")
        Gtk.main_quit()
        return False

    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, on_term)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
