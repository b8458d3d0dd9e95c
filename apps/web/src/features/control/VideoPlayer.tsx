/**
 * The car's live video on the control page (spec §2 "Control page"; docs/video.md "The player (control page)"): a
 * 16:9 frame with the camera picture, a message over it in each state but `playing`, the volume
 * slider and the full-screen toggle, and the page's overlays (telemetry top left, drive meter at
 * the bottom, the race and, on a touch screen in landscape or full screen, the joysticks: the
 * `children`). The frame is the element that goes full screen (use-full-screen.ts), so every
 * overlay goes with it. The Janus session is `lib/janus-stream`. Decoded-frame stats are on the <video>
 * (`data-state`, `data-frames-decoded`, `data-first-frame-ms`) and on `window.__teleraceVideo`,
 * for the e2e tests and the latency bench.
 */
import { type CarVideo, VIDEO_PLAYER } from '@telerace/protocol';
import { type ReactNode, type RefObject, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { buttonClasses } from '../../components/ui/button-styles';
import { LineIcon } from '../../components/ui/Icon';
import { Spinner } from '../../components/ui/Spinner';
import { getAccessToken } from '../../lib/auth-client';
import { cx } from '../../lib/cx';
import { JanusStream, prefetchVideo, type VideoStreamState } from '../../lib/janus-stream';
import { useStarted } from '../../lib/use-started';
import type { FullScreen } from './use-full-screen';

export type VideoPlayerState = 'unavailable' | 'connecting' | 'waiting' | 'playing' | 'retrying';

export interface TeleraceVideoStats {
  state: VideoPlayerState;
  framesDecoded: number;
  /** Ms from the player's mount to the first decoded frame, null before it. */
  firstFrameMs: number | null;
  /** Why the video last dropped, null while it plays. */
  lastError: string | null;
}

declare global {
  interface Window {
    __teleraceVideo?: TeleraceVideoStats;
  }
}

export interface VideoPlayerProps {
  /** The car's video, undefined while its status loads (shown as connecting). */
  video: CarVideo | undefined;
  /** The car's Janus mountpoint id (its `stream_id`). */
  streamId: number;
  /** Janus refused the pin: refresh the car's status. The next attempt waits for what this returns. */
  onPinRejected?: () => unknown;
  topLeft?: ReactNode;
  bottom?: ReactNode;
  /** Drawn over the picture, under the volume and full-screen controls. */
  children?: ReactNode;
  /** The frame's element, for the page's full screen. */
  stageRef?: RefObject<HTMLDivElement | null>;
  /** The page's full screen (its button is in the frame's top right). */
  fullScreen?: FullScreen;
  /** The frame's size where the page needs another than 16:9 at full width. */
  className?: string;
}

/** Watches the stream while `enabled`; the latest pin and callback are read at each attempt. */
function useJanusStream(
  videoRef: RefObject<HTMLVideoElement | null>,
  enabled: boolean,
  streamId: number,
  pin: string | null,
  onPinRejected: (() => unknown) | undefined,
): { stream: VideoStreamState | null; retryNow: () => void } {
  const [startedAt] = useState(() => performance.now());
  const latest = useRef({ pin, onPinRejected });
  useEffect(() => {
    latest.current = { pin, onPinRejected };
  }, [pin, onPinRejected]);

  const { value: janus, snapshot: stream } = useStarted(
    () => {
      const video = videoRef.current;
      if (!enabled || !video) return null;
      const next = new JanusStream({
        streamId,
        video,
        startedAt,
        getPin: () => latest.current.pin,
        getAccessToken,
        onPinRejected: () => latest.current.onPinRejected?.(),
      });
      next.start();
      return { value: next, stop: () => next.stop() };
    },
    [videoRef, enabled, streamId, startedAt],
    (current) => current?.getState() ?? null,
  );
  return { stream, retryNow: () => janus?.retryNow() };
}

const controlFocus = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-[#22d3ee]';

function CameraIcon({ off = false }: { off?: boolean }) {
  return (
    <LineIcon className="hidden size-12 text-white/50 sm:block">
      <rect x="2.5" y="6" width="13" height="12" rx="2" />
      <path strokeLinejoin="round" d="m15.5 10.5 6-3.5v10l-6-3.5z" />
      {off && <path d="m3 3 18 18" />}
    </LineIcon>
  );
}

function StateMessage({
  state,
  unsupported,
  retryInSeconds,
  onRetry,
}: {
  state: VideoPlayerState;
  unsupported: boolean;
  retryInSeconds: number | null;
  onRetry: () => void;
}) {
  const { t } = useTranslation();
  const title = 'font-display text-sm font-black italic sm:text-xl';
  const hint = 'hidden max-w-md text-sm text-white/70 sm:block';
  return (
    <div
      className={cx(
        'absolute inset-0 flex flex-col items-center justify-center gap-3 px-6 text-center',
        state !== 'connecting' && 'bg-black/55',
      )}
      role="status"
      data-testid="video-message"
    >
      {state === 'connecting' && (
        <>
          <Spinner size="lg" decorative className="text-white/70" />
          <p className={title}>{t('control.video.connecting')}</p>
        </>
      )}
      {state === 'waiting' && (
        <>
          <CameraIcon />
          <p className={title}>{t('control.video.waiting')}</p>
          <p className={hint}>{t('control.video.waitingHint')}</p>
        </>
      )}
      {state === 'retrying' && (
        <>
          <p className={title}>{t('control.video.lost', { seconds: retryInSeconds ?? 1 })}</p>
          <button type="button" className={buttonClasses('primary', 'sm')} onClick={onRetry}>
            {t('control.video.retryNow')}
          </button>
        </>
      )}
      {state === 'unavailable' && (
        <>
          <CameraIcon off />
          <p className={title}>
            {t(unsupported ? 'control.video.unsupported' : 'control.video.unavailable')}
          </p>
          <p className={hint}>{t('control.video.hint')}</p>
        </>
      )}
    </div>
  );
}

export function VideoPlayer({
  video,
  streamId,
  onPinRejected,
  topLeft,
  bottom,
  children,
  stageRef,
  fullScreen,
  className,
}: VideoPlayerProps) {
  const { t } = useTranslation();
  const videoRef = useRef<HTMLVideoElement>(null);
  // janus.js and the ICE servers load while the car's status does, not after it.
  const statusLoading = video === undefined;
  useEffect(() => {
    if (statusLoading) prefetchVideo();
  }, [statusLoading]);
  const { stream, retryNow } = useJanusStream(
    videoRef,
    video?.available === true,
    streamId,
    video?.pin ?? null,
    onPinRejected,
  );
  const [volume, setVolume] = useState<number>(VIDEO_PLAYER.volume.initial);

  const status = stream?.status ?? 'connecting';
  const unsupported = status === 'unsupported';
  const state: VideoPlayerState =
    video === undefined ? 'connecting' : !video.available || unsupported ? 'unavailable' : status;
  const framesDecoded = stream?.framesDecoded ?? 0;
  const firstFrameMs = stream?.firstFrameMs ?? null;
  const lastError = stream?.lastError ?? null;

  useEffect(() => {
    const element = videoRef.current;
    if (!element) return;
    element.volume = volume;
    element.muted = volume === 0;
  }, [volume]);

  useEffect(() => {
    window.__teleraceVideo = { state, framesDecoded, firstFrameMs, lastError };
  }, [state, framesDecoded, firstFrameMs, lastError]);
  useEffect(
    () => () => {
      delete window.__teleraceVideo;
    },
    [],
  );

  const percent = Math.round(volume * 100);
  const fullscreenLabel = fullScreen?.active
    ? t('control.video.exitFullscreen')
    : t('control.video.enterFullscreen');
  const coversViewport = fullScreen?.active === true && fullScreen.kind === 'viewport';

  return (
    <div
      ref={stageRef}
      className={cx(
        // A size container: the overlays scale with the frame (cqw/cqh), not with the window.
        'overflow-hidden bg-[#07080b] text-white [container-type:size] [&:fullscreen]:rounded-none [&:fullscreen]:border-0',
        coversViewport
          ? 'fixed inset-0 z-[60] h-dvh w-full'
          : cx('relative aspect-video w-full rounded-2xl border border-line shadow-lg', className),
      )}
      data-testid="video-area"
      data-stream-id={streamId}
      data-full-screen={fullScreen?.active ? fullScreen.kind : undefined}
    >
      <video
        ref={videoRef}
        className="absolute inset-0 size-full object-contain"
        autoPlay
        playsInline
        muted={volume === 0}
        aria-label={t('control.video.label')}
        data-testid="video"
        data-state={state}
        data-frames-decoded={framesDecoded}
        data-first-frame-ms={firstFrameMs ?? undefined}
      />
      {state !== 'playing' && (
        <StateMessage
          state={state}
          unsupported={unsupported}
          retryInSeconds={stream?.retryInSeconds ?? null}
          onRetry={retryNow}
        />
      )}
      {topLeft && (
        // Wraps before the volume and full-screen controls at the top right.
        <div className="absolute top-2 left-2 max-w-[calc(100%-11rem)] sm:top-3 sm:left-3 sm:max-w-[calc(100%-14rem)]">
          {topLeft}
        </div>
      )}
      {bottom && <div className="absolute inset-x-2 bottom-2 sm:inset-x-3 sm:bottom-3">{bottom}</div>}
      {children}
      <div
        className="absolute top-2 right-2 flex items-center gap-1 rounded-full bg-black/60 py-1 pr-1 pl-3 ring-1 ring-white/15 sm:top-3 sm:right-3"
        data-testid="video-controls"
      >
        <label className="flex items-center gap-2">
          <LineIcon className="size-4 shrink-0">
            <path strokeLinejoin="round" d="M4 9v6h4l5 4V5L8 9z" />
            {volume === 0 ? <path d="m16.5 9.5 5 5m0-5-5 5" /> : <path d="M16.5 8.5a5 5 0 0 1 0 7" />}
          </LineIcon>
          <span className="sr-only">{t('control.video.volume')}</span>
          <input
            type="range"
            min={VIDEO_PLAYER.volume.min}
            max={VIDEO_PLAYER.volume.max}
            step={VIDEO_PLAYER.volume.step}
            value={volume}
            onChange={(event) => setVolume(Number(event.target.value))}
            aria-valuetext={
              volume === 0 ? t('control.video.muted') : t('control.video.volumeValue', { percent })
            }
            className={cx('h-1.5 w-16 cursor-pointer rounded-full accent-[#ff5a1f] sm:w-24', controlFocus)}
            data-testid="video-volume"
          />
        </label>
        {fullScreen && (
          <button
            type="button"
            className={cx(
              'inline-flex size-8 items-center justify-center rounded-full hover:bg-white/15',
              controlFocus,
            )}
            aria-pressed={fullScreen.active}
            aria-label={fullscreenLabel}
            title={fullscreenLabel}
            data-testid="full-screen-toggle"
            onClick={fullScreen.toggle}
          >
            <LineIcon className="size-4">
              {fullScreen.active ? (
                <path d="M9 4v5H4m11-5v5h5M9 20v-5H4m11 5v-5h5" />
              ) : (
                <path d="M4 9V4h5m6 0h5v5M4 15v5h5m6 0h5v-5" />
              )}
            </LineIcon>
          </button>
        )}
      </div>
    </div>
  );
}
