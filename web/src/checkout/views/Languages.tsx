import type { Translate } from '../../i18n.js';
import type { Language } from '../../pageConfig.js';

/** The page in another language: a plain link, so the server renders it (and its first request) in that language. */
export function Languages(props: { lang: Language; t: Translate }) {
  const names: Record<Language, string> = { en: 'English', fr: 'Français' };
  return (
    <nav aria-label={props.t('language.label')} class="languages">
      {(Object.keys(names) as Language[]).map((code) => (
        <a
          key={code}
          href={`?lang=${code}`}
          hreflang={code}
          lang={code}
          aria-current={code === props.lang ? 'true' : undefined}
        >
          {names[code]}
        </a>
      ))}
    </nav>
  );
}

export function NotFound(props: { t: Translate }) {
  return (
    <section data-view="not-found">
      <h1>{props.t('notFound.title')}</h1>
      <p>{props.t('notFound.body')}</p>
    </section>
  );
}
