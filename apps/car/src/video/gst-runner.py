#!/usr/bin/python3
"""The car's camera pipeline with run-time control (docs/video.md "Run-time encoder control").

    /usr/bin/python3 gst-runner.py [--control-fd N] [-v] PIPELINE-ARGV...
    /usr/bin/python3 gst-runner.py --check

Builds the pipeline from the same argv `gst-launch-1.0` takes (pipeline.ts builds it; the same
Gst.parse_launchv), runs it, and behaves like gst-launch where the agent looks: with `-v` every
element's `last-message` goes to stdout as `gst-launch-1.0 -v` prints it (frame-meter.ts counts
the `identity name=sent` lines), an error goes to stderr as `ERROR: from element …` or
`WARNING: erroneous pipeline: …` with exit code 1, end of stream (the simulator closing stdin)
exits with 0, SIGTERM and SIGINT stop the pipeline and end the process by that signal.

Unlike gst-launch, it reads commands, one per line, on the file descriptor `--control-fd` (never
stdin: the simulated camera's frames arrive there), from the element named `encoder`:

    bitrate KBPS   the encoder's target bitrate, in kbit/s, while it plays (x264enc's `bitrate`,
                   v4l2h264enc's `video_bitrate` control)
    keyframe       the next frame is an IDR (x264enc: a force-key-unit event; v4l2h264enc: the
                   driver's force-key-frame control)

Each command is answered with one line on stdout, `control: bitrate 300` or
`control: refused LINE: WHY`; a keyframe also with `control: keyframe out after 12.3 ms, 0 frames
before it` once it has passed the element `sent`: the time from the request to the encoder to the
IDR leaving it, and the frames that left the encoder in between, taken in this process (what the
encoder did, whatever the machine's load does to whoever reads this). When the control
descriptor closes (the agent ended it, or died) the pipeline stops and the process exits with 0;
when stdout closes (nobody reads), the process exits at once.

`--check` only says (exit 0) whether GStreamer's Python bindings are here: python3-gi,
gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0.
"""

import fcntl
import os
import signal
import struct
import sys
import threading
import time

ENCODER_NAME = 'encoder'
# frame-meter.ts's SENT_FRAMES_ELEMENT: every encoded frame passes it on its way out.
SENT_NAME = 'sent'
PROCESS_NAME = b'gst-runner'
PACKAGES = 'python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0'

# linux/videodev2.h: VIDIOC_S_CTRL = _IOWR('V', 28, struct v4l2_control { __u32 id; __s32 value; }),
# V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME = V4L2_CID_CODEC_BASE + 229 (a button: any value presses it).
VIDIOC_S_CTRL = 0xC008561C
V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME = 0x009909E5


def name_process():
    """`gst-runner` in ps and top (and /proc/PID/comm) rather than `python3`."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_name = 15
        libc.prctl(pr_set_name, ctypes.c_char_p(PROCESS_NAME), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def load_gstreamer():
    import gi

    gi.require_version('Gst', '1.0')
    gi.require_version('GstVideo', '1.0')
    from gi.repository import GLib, GObject, Gst, GstVideo

    return GLib, GObject, Gst, GstVideo


def say(line):
    """One line on stdout, at once (the agent reads it as it comes)."""
    try:
        sys.stdout.write(line + '\n')
        sys.stdout.flush()
    except BrokenPipeError:
        # Nobody reads any more: the agent is gone. Its camera is released with the process.
        os._exit(0)


def error(line):
    sys.stderr.write(line + '\n')
    sys.stderr.flush()


class Runner:
    def __init__(self, GLib, GObject, Gst, GstVideo, pipeline, control_fd, verbose):
        self.GLib = GLib
        self.GObject = GObject
        self.Gst = Gst
        self.GstVideo = GstVideo
        self.pipeline = pipeline
        self.control_fd = control_fd
        self.verbose = verbose
        self.loop = GLib.MainLoop()
        self.exit_code = 0
        self.exit_signal = None
        self.pending = b''
        self.encoder = pipeline.get_by_name(ENCODER_NAME)
        self.sent = pipeline.get_by_name(SENT_NAME)
        # A keyframe request being timed: when it was made (monotonic seconds), guarded by the lock
        # (the pad probe runs on GStreamer's streaming thread).
        self.lock = threading.Lock()
        self.keyframe_asked = None
        self.frames_before = 0

    # ------------------------------------------------------------------ running

    def run(self):
        GLib, Gst = self.GLib, self.Gst
        bus = self.pipeline.get_bus()
        bus.add_watch(GLib.PRIORITY_DEFAULT, self.on_message)
        if self.verbose:
            # What `gst-launch-1.0 -v` prints, restricted to what the agent reads.
            self.pipeline.add_property_deep_notify_watch('last-message', True)
        for signum in (signal.SIGTERM, signal.SIGINT):
            GLib.unix_signal_add(GLib.PRIORITY_HIGH, signum, self.on_signal, signum)
        if self.control_fd is not None:
            GLib.io_add_watch(
                self.control_fd,
                GLib.PRIORITY_HIGH,
                GLib.IOCondition.IN | GLib.IOCondition.HUP | GLib.IOCondition.ERR,
                self.on_control,
            )
        if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            message = bus.timed_pop_filtered(0, Gst.MessageType.ERROR)
            if message:
                self.print_error(message)
            error("ERROR: pipeline doesn't want to play.")
            self.exit_code = 1
        else:
            self.loop.run()
        self.shut_down()
        return self.exit_code

    def stop(self, code=0):
        if self.exit_code == 0:
            self.exit_code = code
        self.loop.quit()

    def shut_down(self):
        # A pipeline that hangs on its way down (a stuck driver) must not keep the process:
        # SIGALRM's default action ends it.
        signal.alarm(3)
        self.pipeline.set_state(self.Gst.State.NULL)
        signal.alarm(0)

    def on_signal(self, signum):
        self.exit_signal = signum
        self.stop()
        return self.GLib.SOURCE_REMOVE

    def on_message(self, _bus, message):
        Gst = self.Gst
        kind = message.type
        if kind == Gst.MessageType.ERROR:
            self.print_error(message)
            self.stop(1)
        elif kind == Gst.MessageType.EOS:
            self.stop(0)
        elif kind == Gst.MessageType.PROPERTY_NOTIFY:
            self.print_property(message)
        elif kind == Gst.MessageType.LATENCY:
            self.pipeline.recalculate_latency()
        elif kind == Gst.MessageType.CLOCK_LOST:
            self.pipeline.set_state(Gst.State.PAUSED)
            self.pipeline.set_state(Gst.State.PLAYING)
        elif kind == Gst.MessageType.WARNING:
            warning, _debug = message.parse_warning()
            error(f'WARNING: from element {message.src.get_path_string()}: {warning.message}')
        return True

    def print_error(self, message):
        failure, debug = message.parse_error()
        error(f'ERROR: from element {message.src.get_path_string()}: {failure.message}')
        if debug:
            error(f'Additional debug info:\n{debug}')

    def print_property(self, message):
        obj, name, value = message.parse_property_notify()
        if value is None:
            return
        contents = value.get_value() if hasattr(value, 'get_value') else value
        say(f'{obj.get_path_string()}: {name} = {contents}')

    # ------------------------------------------------------------------ control

    def on_control(self, fd, condition):
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b''
        if not data:
            # The agent closed its end, or died: nobody can steer this pipeline any more.
            self.stop(0)
            return False
        lines = (self.pending + data).split(b'\n')
        self.pending = lines.pop()[-1024:]
        for line in lines:
            text = line.decode('utf-8', 'replace').strip()
            if text:
                self.command(text)
        return True

    def command(self, text):
        words = text.split()
        try:
            if self.encoder is None:
                raise ValueError(f'no element named {ENCODER_NAME}')
            if words[0] == 'bitrate' and len(words) == 2:
                kbps = int(words[1])
                self.set_bitrate(kbps)
                say(f'control: bitrate {kbps}')
            elif words == ['keyframe']:
                asked = time.monotonic()
                self.force_keyframe()
                say('control: keyframe')
                self.time_keyframe(asked)
            else:
                raise ValueError('unknown command')
        except (ValueError, TypeError, OSError) as why:
            say(f'control: refused {text[:100]}: {why}')

    def factory(self):
        factory = self.encoder.get_factory()
        return factory.get_name() if factory else ''

    def set_bitrate(self, kbps):
        if kbps <= 0:
            raise ValueError('not a bitrate')
        kind = self.factory()
        if kind == 'x264enc':
            # kbit/s, mutable while playing: x264 reconfigures at the next frame.
            self.encoder.set_property('bitrate', kbps)
        elif kind == 'v4l2h264enc':
            # bit/s, through the V4L2 control; extra-controls are applied to an open device at
            # once (untested on a Pi by our suite: see docs/video.md).
            # The other controls are applied again with it (harmless: the values they have).
            controls = self.encoder.get_property('extra-controls')
            controls = controls.copy() if controls else self.Gst.Structure.new_empty('controls')
            bps = self.GObject.Value(self.GObject.TYPE_INT, kbps * 1000)
            controls.set_value('video_bitrate', bps)
            self.encoder.set_property('extra-controls', controls)
        else:
            raise ValueError(f'cannot set the bitrate of {kind or "this encoder"}')

    def time_keyframe(self, asked):
        """Says how long after `asked` the next keyframe passed `sent` (one answer for the requests
        it serves together)."""
        if self.sent is None:
            return
        with self.lock:
            if self.keyframe_asked is not None:
                return
            self.keyframe_asked = asked
            self.frames_before = 0
        pad = self.sent.get_static_pad('src')
        pad.add_probe(self.Gst.PadProbeType.BUFFER, self.on_sent_buffer)

    def on_sent_buffer(self, _pad, info):
        Gst = self.Gst
        buffer = info.get_buffer()
        if buffer is None or buffer.has_flags(Gst.BufferFlags.DELTA_UNIT):
            self.frames_before += 1
            return Gst.PadProbeReturn.OK
        with self.lock:
            asked, self.keyframe_asked = self.keyframe_asked, None
        if asked is not None:
            ms = (time.monotonic() - asked) * 1000
            frames = f'{self.frames_before} frame{"" if self.frames_before == 1 else "s"}'
            line = f'control: keyframe out after {ms:.1f} ms, {frames} before it'
            self.GLib.idle_add(self.say_once, line)
        return Gst.PadProbeReturn.REMOVE

    def say_once(self, line):
        say(line)
        return self.GLib.SOURCE_REMOVE

    def force_keyframe(self):
        Gst, GstVideo = self.Gst, self.GstVideo
        if self.factory() == 'v4l2h264enc':
            # GStreamer's V4L2 encoders turn the force-key-unit event into the driver's control only
            # from 1.22.4 on (Debian 12 has 1.22.0, whose v4l2h264enc ignores the event): press the
            # control on the encoder's device ourselves, whatever the version (untested on a Pi by
            # our suite: see docs/video.md).
            fd = self.encoder.get_property('device-fd')
            if fd < 0:
                raise ValueError('the encoder has no device open yet')
            control = struct.pack('=Ii', V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME, 1)
            fcntl.ioctl(fd, VIDIOC_S_CTRL, control)
            return
        # Upstream, on the encoder's source pad: handled at once (a downstream one would queue
        # behind the frames waiting in front of the encoder). All headers: SPS and PPS with it.
        event = GstVideo.video_event_new_upstream_force_key_unit(Gst.CLOCK_TIME_NONE, True, 0)
        pad = self.encoder.get_static_pad('src')
        if pad is None or not pad.send_event(event):
            raise ValueError('the encoder refused the force-key-unit event')


def main(argv):
    args = argv[1:]
    control_fd = None
    verbose = False
    check = False
    while args and args[0].startswith('-'):
        option = args.pop(0)
        if option == '--check':
            check = True
        elif option == '--control-fd' and args:
            control_fd = int(args.pop(0))
        elif option == '-v':
            verbose = True
        elif option == '--':
            break
        else:
            error(f'gst-runner: unknown option {option}')
            return 2
    try:
        GLib, GObject, Gst, GstVideo = load_gstreamer()
    except (ImportError, ValueError) as why:
        error(f'ERROR: GStreamer for Python is missing ({why}): sudo apt-get install {PACKAGES}')
        return 3
    if check:
        return 0
    if not args:
        error('gst-runner: no pipeline')
        return 2
    name_process()
    Gst.init(None)
    if control_fd is not None:
        os.set_inheritable(control_fd, False)
    try:
        pipeline = Gst.parse_launchv(args)
    except GLib.Error as why:
        error(f'WARNING: erroneous pipeline: {why.message}')
        return 1
    if not isinstance(pipeline, Gst.Pipeline):
        whole = Gst.Pipeline.new(None)
        whole.add(pipeline)
        pipeline = whole
    runner = Runner(GLib, GObject, Gst, GstVideo, pipeline, control_fd, verbose)
    code = runner.run()
    if runner.exit_signal is not None:
        # Ended by a signal, as gst-launch would be (the agent's log says which).
        sys.stdout.flush()
        signal.signal(runner.exit_signal, signal.SIG_DFL)
        os.kill(os.getpid(), runner.exit_signal)
    return code


if __name__ == '__main__':
    sys.exit(main(sys.argv))
