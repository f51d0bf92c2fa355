import { Component, type ReactNode } from 'react';
import { ErrorNotice } from './ErrorNotice';

/** One per screen: a screen that throws shows what went wrong, the rest of the console keeps working. */
export class ErrorBoundary extends Component<{ children: ReactNode; screen: string }, { error: unknown }> {
  override state: { error: unknown } = { error: undefined };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidUpdate(previous: { screen: string }) {
    if (previous.screen !== this.props.screen && this.state.error) this.setState({ error: undefined });
  }

  override render() {
    if (this.state.error) return <ErrorNotice error={this.state.error} title={`The ${this.props.screen} screen failed`} />;
    return this.props.children;
  }
}
