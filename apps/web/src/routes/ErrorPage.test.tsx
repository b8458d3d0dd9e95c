import { render, screen } from '@testing-library/react';
import { createMemoryRouter, data, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import '../i18n';
import ErrorPage from './ErrorPage';

function Broken(): never {
  throw new Error('Wheel fell off');
}

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

describe('default error page', () => {
  it('shows the message of an error thrown while rendering', async () => {
    const router = createMemoryRouter([{ path: '/', element: <Broken />, errorElement: <ErrorPage /> }]);
    render(<RouterProvider router={router} />);
    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeInTheDocument();
    expect(screen.getByText('Wheel fell off')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
  });

  it('shows the status of an error response', async () => {
    const router = createMemoryRouter([
      {
        path: '/',
        loader: () => {
          throw data(null, { status: 503, statusText: 'Service Unavailable' });
        },
        element: null,
        hydrateFallbackElement: null,
        errorElement: <ErrorPage />,
      },
    ]);
    render(<RouterProvider router={router} />);
    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeInTheDocument();
    expect(screen.getByText('Error 503 · Service Unavailable')).toBeInTheDocument();
  });
});
