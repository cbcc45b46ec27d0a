import { render } from 'preact';
import { App } from './App';
import '../kit/kit.css';
import './pos.css';

/** The terminal is the page's path: /pos/{posId} (the server answers only well-formed ids with this page). */
const posId = location.pathname.split('/')[2] ?? '';

render(<App posId={posId} />, document.getElementById('app')!);
