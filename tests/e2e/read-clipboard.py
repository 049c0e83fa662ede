#!/usr/bin/python3
"""Prints the X clipboard's text (CLIPBOARD selection), as a program the
player pastes into would get it; exits 1 when the clipboard holds no text."""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

text = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).wait_for_text()
if text is None:
    sys.exit(1)
sys.stdout.write(text)
