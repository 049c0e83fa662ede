#!/usr/bin/env python3
"""A hostile program on the session bus, for the end-to-end tests.

usage: bus-squatter.py NAME

Takes the D-Bus name NAME (an app window's single-instance name) before the
app does, and answers the hand-over call of tauri-plugin-single-instance
(org.SingleInstance.DBus.ExecuteCallback) as the app's window would, so
that a launch that trusts whoever holds the name hands it its paths and
ends with no window. Prints `OWNED` once it holds the name, then
`HANDED <json>` for every hand-over it receives; ends on SIGTERM.
"""
import json
import signal
import sys

from gi.repository import Gio, GLib

INTERFACE = """
<node>
  <interface name="org.SingleInstance.DBus">
    <method name="ExecuteCallback">
      <arg type="as" name="argv" direction="in"/>
      <arg type="s" name="cwd" direction="in"/>
    </method>
  </interface>
</node>
"""


def main():
    name = sys.argv[1]
    # The object path the plugin calls: the name with '.' as '/' and '-' as '_'.
    path = "/" + name.replace(".", "/").replace("-", "_")
    interface = Gio.DBusNodeInfo.new_for_xml(INTERFACE).interfaces[0]
    loop = GLib.MainLoop()

    def on_call(_conn, _sender, _path, _iface, _method, params, invocation):
        argv, cwd = params.unpack()
        print("HANDED " + json.dumps({"argv": argv, "cwd": cwd}), flush=True)
        invocation.return_value(None)

    def on_bus(conn, _name):
        conn.register_object(path, interface, on_call, None, None)

    def on_name(_conn, _name):
        print("OWNED", flush=True)

    def on_lost(_conn, _name):
        print("LOST", flush=True)
        loop.quit()

    Gio.bus_own_name(Gio.BusType.SESSION, name, Gio.BusNameOwnerFlags.NONE, on_bus, on_name, on_lost)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    loop.run()


if __name__ == "__main__":
    main()
